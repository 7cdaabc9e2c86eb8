// Helpers for the interpreter's tests: build small graphs from literal values, run them, read the
// results back in row-major order, and compare bit for bit (every NaN equal to every NaN, -0.0
// different from 0.0).
#pragma once

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir::testing {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr double kNaN64 = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf64 = std::numeric_limits<double>::infinity();
inline constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();
inline constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// A contiguous input of `shape` holding `values` (row-major), in a fresh owned buffer.
template <typename T> NodePtr input(const Shape& shape, const std::vector<T>& values) {
  auto buffer = Buffer::allocate(values.size() * sizeof(T));
  T* data = static_cast<T*>(buffer->data());
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return make_input(std::move(buffer), dtype_of<T>(), Layout::contiguous(shape));
}
template <typename T> NodePtr input(const std::vector<T>& values) {
  return input<T>(Shape{static_cast<std::int64_t>(values.size())}, values);
}

// The elements of `value` in row-major order of its shape, read through its layout.
template <typename T> std::vector<T> read(const Value& value) {
  REQUIRE(value.dtype == dtype_of<T>());
  const Shape& shape = value.layout.shape;
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  std::vector<T> values;
  const T* data = static_cast<const T*>(value.buffer->data());
  for (std::int64_t linear = 0; linear < count; ++linear) {
    std::int64_t offset = value.layout.offset;
    std::int64_t rest = linear;
    for (std::size_t axis = shape.size(); axis-- > 0;) {
      offset += (rest % shape[axis]) * value.layout.strides[axis];
      rest /= shape[axis];
    }
    values.push_back(data[offset]);
  }
  return values;
}

// Interprets the graph of `outputs` (after verifying it) and returns their values.
inline std::vector<Value> run(const std::vector<NodePtr>& outputs) {
  Graph graph{outputs};
  verify(graph);
  return interpret(graph);
}

template <typename T> std::vector<T> evaluate(const NodePtr& node) {
  return read<T>(run({node}).at(0));
}

template <typename T> bool same_bits(T a, T b) {
  if constexpr (is_storage_float_v<T>) {
    return a.bits == b.bits || (std::isnan(static_cast<float>(a)) && std::isnan(static_cast<float>(b)));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <typename T>
void check_same(const std::vector<T>& got, const std::vector<T>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    CHECK(same_bits<T>(got[i], expected[i]));
  }
}

// op applied to a 1-D input of `values` (and `others`), results of C++ type R.
template <typename T, typename R = T> std::vector<R> unary(Op op, const std::vector<T>& values) {
  return evaluate<R>(make_unary(op, input<T>(values)));
}
template <typename T, typename R = T>
std::vector<R> binary(Op op, const std::vector<T>& a, const std::vector<T>& b) {
  return evaluate<R>(make_binary(op, input<T>(a), input<T>(b)));
}
template <typename To, typename From> std::vector<To> cast(const std::vector<From>& values) {
  return evaluate<To>(make_cast(input<From>(values), dtype_of<To>()));
}

inline NodePtr slice(NodePtr x, int axis, std::int64_t start, std::int64_t step,
                     std::int64_t count) {
  return Node::make(Op::slice, {std::move(x)}, SliceAttr{axis, start, step, count});
}
inline NodePtr matmul(NodePtr a, NodePtr b) {
  return Node::make(Op::matmul, {std::move(a), std::move(b)});
}
inline NodePtr where(NodePtr condition, NodePtr a, NodePtr b) {
  return Node::make(Op::where, {std::move(condition), std::move(a), std::move(b)});
}
inline NodePtr iota(DType dtype, std::int64_t count, double start, double step) {
  return make_iota(dtype, count, start, step);
}

}  // namespace tensorjit::ir::testing
