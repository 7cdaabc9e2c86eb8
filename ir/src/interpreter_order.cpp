// sort and argsort along one axis (ops.def): for each line along the axis (the other axes' indices
// in row-major order), the positions 0..n-1 in the order std::stable_sort gives them under
//   ascending:  a before b when a < b, or b is NaN and a is not
//   descending: a before b when a > b, or a is NaN and b is not
// so equal elements (-0.0 and 0.0 included, and every NaN with every NaN) keep their order; the
// first `count` positions are kept. sort writes the values at those positions (their own bits),
// argsort the positions (i64). The sort kernel of kernels/ gives the same results.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include <tensorjit/ir/check.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

template <typename T> bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

template <typename T> bool ascending_before(T a, T b) { return a < b || (is_nan(b) && !is_nan(a)); }
template <typename T> bool descending_before(T a, T b) { return a > b || (is_nan(a) && !is_nan(b)); }

template <typename T>
void order_lines(const Node& node, const Value& input, const Value& result) {
  const auto& attr = node.attr<SortAttr>();
  const auto axis = static_cast<std::size_t>(attr.axis);
  const T* x = input.data<T>();
  const Shape& shape = input.layout.shape;
  const std::int64_t extent = shape[axis];
  const std::int64_t input_step = input.layout.strides[axis];
  const std::int64_t result_step = result.layout.strides[axis];
  Shape lines = shape;
  lines[axis] = 1;
  std::vector<std::int64_t> positions(static_cast<std::size_t>(extent));
  const std::array operands{StridedOperand{input.layout.strides, 0},
                            StridedOperand{result.layout.strides, 0}};
  walk_strided(lines, operands, [&](const auto& offsets) {
    auto at = [&](std::int64_t i) { return x[offsets[0] + i * input_step]; };
    std::iota(positions.begin(), positions.end(), std::int64_t{0});
    if (attr.descending)
      std::stable_sort(positions.begin(), positions.end(),
                       [&](std::int64_t a, std::int64_t b) { return descending_before(at(a), at(b)); });
    else
      std::stable_sort(positions.begin(), positions.end(),
                       [&](std::int64_t a, std::int64_t b) { return ascending_before(at(a), at(b)); });
    for (std::int64_t i = 0; i < attr.count; ++i) {
      const std::int64_t position = positions[static_cast<std::size_t>(i)];
      if (node.op() == Op::argsort)
        result.data<std::int64_t>()[offsets[1] + i * result_step] = position;
      else
        result.data<T>()[offsets[1] + i * result_step] = at(position);
    }
  });
}

}  // namespace

Value evaluate_order(const Node& node, const Value& input) {
  TJ_INTERNAL_CHECK(is_order(node.op())) << "interpreter: " << op_name(node.op()) << " is not an ordering";
  Value result = allocate_contiguous(node.dtype(), node.shape());
  visit_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // f16 and bf16 orderings run as their f32 form (f32_form.hpp, the driver).
    if constexpr (is_storage_float_v<T>) TJ_INTERNAL_CHECK(false) << "interpreter: sort of " << dtype_name(input.dtype);
    else order_lines<T>(node, input, result);
  });
  return result;
}

}  // namespace tensorjit::ir
