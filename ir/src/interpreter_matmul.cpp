// matmul: [..., m, k] x [..., k, n] -> [..., m, n] with equal batch shapes (the API broadcasts
// batch axes with expand, so the operands may have zero strides).
//
// Each output element is ONE chain over k in increasing order, starting from +0 (the GEMM's
// contract, docs/contracts.md, contract 3):
//   floats:   acc = +0; for p in 0..k: acc = fma(a[i, p], b[p, j], acc)  (std::fma: one rounding)
//   integers: acc = 0;  for p in 0..k: acc = acc + a[i, p] * b[p, j]     (wrapping)
// so k == 0 gives +0, and a chain of products that are all -0.0 gives +0.0.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

template <typename T> T multiply_add(T a, T b, T accumulator) {
  if constexpr (std::is_floating_point_v<T>) return std::fma(a, b, accumulator);
  else return wrapping_add(accumulator, wrapping_mul(a, b));
}

// The operand's strides split into its batch axes and its two matrix axes.
struct MatrixStrides {
  std::span<const std::int64_t> batch;
  std::int64_t row;
  std::int64_t column;
};

MatrixStrides matrix_strides(const Strides& strides) {
  const std::size_t rank = strides.size();
  return {std::span<const std::int64_t>(strides).first(rank - 2), strides[rank - 2], strides[rank - 1]};
}

template <typename T>
void multiply(const Value& a, const Value& b, const Value& result, std::int64_t m, std::int64_t k,
              std::int64_t n) {
  const T* a_data = static_cast<const T*>(a.buffer->data());
  const T* b_data = static_cast<const T*>(b.buffer->data());
  T* result_data = static_cast<T*>(result.buffer->data());
  const MatrixStrides a_strides = matrix_strides(a.layout.strides);
  const MatrixStrides b_strides = matrix_strides(b.layout.strides);
  const Strides result_contiguous_strides = contiguous_strides(result.layout.shape);
  const MatrixStrides result_strides = matrix_strides(result_contiguous_strides);
  const Shape batch_shape(result.layout.shape.begin(), result.layout.shape.end() - 2);
  const std::array batches{StridedOperand{a_strides.batch, a.layout.offset},
                           StridedOperand{b_strides.batch, b.layout.offset},
                           StridedOperand{result_strides.batch, result.layout.offset}};
  walk_strided(batch_shape, batches, [&](const auto& base) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        T accumulator{0};
        for (std::int64_t p = 0; p < k; ++p) {
          const T a_element = a_data[base[0] + i * a_strides.row + p * a_strides.column];
          const T b_element = b_data[base[1] + p * b_strides.row + j * b_strides.column];
          accumulator = multiply_add(a_element, b_element, accumulator);
        }
        result_data[base[2] + i * result_strides.row + j * result_strides.column] = accumulator;
      }
    }
  });
}

}  // namespace

Value evaluate_matmul(const Node& node, const Value& a, const Value& b) {
  const Shape& a_shape = a.layout.shape;
  const Shape& b_shape = b.layout.shape;
  const std::size_t rank = a_shape.size();
  TJ_INTERNAL_CHECK(rank >= 2 && b_shape.size() == rank && a.dtype == b.dtype &&
                    a.dtype == node.dtype() && (is_floating(a.dtype) || is_integer(a.dtype)) &&
                    std::equal(a_shape.begin(), a_shape.end() - 2, b_shape.begin()) &&
                    a_shape[rank - 1] == b_shape[rank - 2])
      << "interpreter: matmul of " << dtype_name(a.dtype) << shape_str(a_shape) << " and "
      << dtype_name(b.dtype) << shape_str(b_shape);
  const std::int64_t m = a_shape[rank - 2];
  const std::int64_t k = a_shape[rank - 1];
  const std::int64_t n = b_shape[rank - 1];
  Shape result_shape(a_shape.begin(), a_shape.end() - 2);
  result_shape.push_back(m);
  result_shape.push_back(n);
  TJ_INTERNAL_CHECK(result_shape == node.shape())
      << "interpreter: matmul gives " << shape_str(result_shape) << " but its node is "
      << shape_str(node.shape());
  Value result = allocate_contiguous(node.dtype(), node.shape());
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // f16 and bf16 products run as their f32 form (f32_form.hpp, the driver).
    if constexpr (!std::is_same_v<T, bool> && !is_storage_float_v<T>) multiply<T>(a, b, result, m, k, n);
    else TJ_INTERNAL_CHECK(false) << "interpreter: matmul of " << dtype_name(a.dtype);
  });
  return result;
}

}  // namespace tensorjit::ir
