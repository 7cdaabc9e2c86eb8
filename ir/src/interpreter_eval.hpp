// The interpreter's parts, one file each: the driver (interpreter.cpp) calls one of these per node,
// by the node's ops.def category. Each returns the node's value and checks what it relies on.
#pragma once

#include <span>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

// A fresh contiguous value (64-byte aligned, zero-filled) of `dtype` and `shape`.
Value allocate_contiguous(DType dtype, const Shape& shape);

// The same elements as `value`, copied into a fresh contiguous value.
Value copy_to_contiguous(const Value& value);

// input (its bound buffer and layout), constant (a 1-element buffer with zero strides), iota.
Value evaluate_source(const Node& node);
// reshape, permute, expand, slice: the input's buffer under a new layout (a copy first only when a
// reshape cannot be expressed by strides).
Value evaluate_view(const Node& node, const Value& input);
// unary, binary and ternary ops: ScalarOp<op> on each element, written contiguously.
Value evaluate_elementwise(const Node& node, std::span<const Value> inputs);
// reduce_* and argmax/argmin, written contiguously.
Value evaluate_reduce(const Node& node, const Value& input);
// cumsum along its axis in the strict sequential order, written contiguously.
Value evaluate_scan(const Node& node, const Value& input);
// sort and argsort along their axis (stable, NaN last ascending and first descending), written
// contiguously.
Value evaluate_order(const Node& node, const Value& input);
// gather and scatter_add (docs/indexing.md): throws tensorjit::Error for the first index, in
// row-major order, outside its axis.
Value evaluate_indexing(const Node& node, std::span<const Value> inputs);
// concat: the operands one after the other along its axis, written contiguously.
Value evaluate_concat(const Node& node, std::span<const Value> inputs);
// matmul, one fused multiply-add chain per output element, written contiguously.
Value evaluate_matmul(const Node& node, const Value& a, const Value& b);

}  // namespace tensorjit::ir
