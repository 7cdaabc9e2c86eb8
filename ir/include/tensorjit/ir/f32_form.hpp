// What an op other than an elementwise one means on f16 and bf16 operands (dtype.hpp): the op on
// its operands converted to f32, a floating result rounded back once. A sum or a cumsum
// accumulates in f32, a matmul is one f32 FMA chain, max and sort compare as f32 (exactly the f16
// order): PyTorch's eager CPU results. A scatter_add adds each destination's values in f32 and
// rounds the total once (PyTorch's CPU index_add rounds after every add). The interpreter evaluates
// this form, and canonicalize rewrites to it, so the kernels meet reductions, scans, orderings,
// products and scatters in f32 only. A gather copies and needs no form: it reads 16-bit values.
#pragma once

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

// Whether `node` is a reduction, scan, ordering, matmul or scatter_add with an f16 or bf16 operand.
bool has_f32_form(const Node& node);

// cast(op(cast(operands, f32)), node's dtype) (no outer cast for an index result), over the
// node's own inputs; index operands stay as they are. Requires has_f32_form(node).
NodePtr f32_form(const Node& node);

// Whether `node` widens an f16 or bf16 value to f32: cast(x, f32). As an operand of a matmul it
// needs no step of its own: the GEMM converts x as it packs it (fuse.hpp, kernels/ gemm.hpp's
// Storage), exactly, so the product's bits are those of the f32 operand.
bool widens_storage_float(const Node& node);

}  // namespace tensorjit::ir
