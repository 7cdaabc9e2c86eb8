// Reductions over a set of axes, and argmax/argmin over one axis.
//
// The input's axes split into kept axes (the result's, in order; with keepdims the result also has
// extent-1 axes in place of the reduced ones, which does not change the row-major order) and
// reduced axes. For each kept index, in row-major order, the reduced elements are gathered in
// row-major order of their indices and combined by combine_in_order in the strict order of
// reduction_order.hpp (docs/contracts.md, contract 3), which the JIT reproduces bit for bit. Both
// modes (strict, fast) use it here.
//
//   reduce_sum   bool and integers accumulate in i64 (wrapping), floats in their own dtype; empty 0
//   reduce_prod  likewise; empty 1
//   reduce_max   maximum (scalar_ops.hpp) in the strict order: NaN propagates, and of tied -0.0 and
//   reduce_min   0.0 the one the order meets first as left operand wins (max of [-0.0, 0.0] is
//                -0.0); bool: any / all. Empty: Error
//   reduce_any   empty false
//   reduce_all   empty true
//   argmax       i64 index along the one axis of the first maximum; NaN counts as the maximum, so
//   argmin       the first NaN wins (numpy). Empty: Error
//
// "Empty" is a reduced axis of extent 0: Node::make already rejects it for max, min, argmax and
// argmin (there is no identity); the interpreter checks again before it would read nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

// The strict order of reduction_order.hpp, for every reduction and both modes (fast may take any
// order; the interpreter takes this one): blocks, virtual lanes starting at `neutral`, a fixed tree
// per block, blocks left to right. No elements give `identity`. This function alone defines the
// order of the interpreter's arithmetic.
template <typename Acc, typename Combine>
Acc combine_in_order(std::span<const Acc> elements, Acc identity, Acc neutral, Combine combine) {
  if (elements.empty()) return identity;
  const auto lane_count = static_cast<std::size_t>(reduction_lanes(sizeof(Acc)));
  const auto block_size = static_cast<std::size_t>(kReductionBlock);
  std::array<Acc, 64> lanes{};
  Acc total = neutral;
  for (std::size_t block = 0; block < elements.size(); block += block_size) {
    std::fill_n(lanes.begin(), lane_count, neutral);
    const std::size_t block_end = std::min(elements.size(), block + block_size);
    for (std::size_t i = block; i < block_end; ++i) {
      Acc& lane = lanes[(i - block) % lane_count];
      lane = combine(lane, elements[i]);
    }
    for (std::size_t width = lane_count / 2; width >= 1; width /= 2)
      for (std::size_t l = 0; l < width; ++l) lanes[l] = combine(lanes[l], lanes[l + width]);
    total = combine(total, lanes[0]);  // neutral ⊕ partial_0 is partial_0, bit for bit
  }
  return total;
}

template <typename T> bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

// The index of the first element that no later element is strictly better than; a NaN is better
// than everything, so the first NaN wins. `elements` is not empty.
template <typename T, typename Better>
std::int64_t index_of_first_extreme(std::span<const T> elements, Better better) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < elements.size() && !is_nan(elements[best]); ++i) {
    if (is_nan(elements[i]) || better(elements[i], elements[best])) best = i;
  }
  return static_cast<std::int64_t>(best);
}

struct AxisSplit {
  Shape kept_shape;
  Strides kept_strides;
  Shape reduced_shape;
  Strides reduced_strides;
};

AxisSplit split_axes(const Node& node, const Layout& input, const std::vector<int>& axes) {
  const int rank = static_cast<int>(input.shape.size());
  TJ_INTERNAL_CHECK(std::is_sorted(axes.begin(), axes.end()) &&
                    std::adjacent_find(axes.begin(), axes.end()) == axes.end() &&
                    (axes.empty() || (axes.front() >= 0 && axes.back() < rank)))
      << "interpreter: " << op_name(node.op()) << " has bad axes for shape "
      << shape_str(input.shape);
  AxisSplit split;
  for (int axis = 0; axis < rank; ++axis) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), axis);
    (reduced ? split.reduced_shape : split.kept_shape).push_back(input.shape[axis]);
    (reduced ? split.reduced_strides : split.kept_strides).push_back(input.strides[axis]);
  }
  return split;
}

// For each kept index in row-major order: gathers the reduced elements of `input` (C++ type T),
// converted to Acc, and writes reduce_elements(elements) to the contiguous `result` (type R).
template <typename T, typename Acc, typename R, typename ReduceElements>
void reduce_each_row(const Value& input, const AxisSplit& split, const Value& result,
                     ReduceElements reduce_elements) {
  TJ_INTERNAL_CHECK(input.dtype == dtype_of<T>() && result.dtype == dtype_of<R>())
      << "interpreter: a reduction of " << dtype_name(input.dtype) << " to "
      << dtype_name(result.dtype) << " computed " << dtype_name(dtype_of<R>());
  const T* input_data = static_cast<const T*>(input.buffer->data());
  R* result_data = static_cast<R*>(result.buffer->data());
  const Strides result_strides = contiguous_strides(split.kept_shape);
  // Not a std::vector: std::vector<bool> is not contiguous.
  const auto elements = std::make_unique<Acc[]>(
      static_cast<std::size_t>(checked_numel(split.reduced_shape, "reduce")));
  std::size_t count = 0;
  const std::array outer{StridedOperand{split.kept_strides, input.layout.offset},
                         StridedOperand{result_strides, result.layout.offset}};
  walk_strided(split.kept_shape, outer, [&](const auto& row_offsets) {
    count = 0;
    const std::array inner{StridedOperand{split.reduced_strides, row_offsets[0]}};
    walk_strided(split.reduced_shape, inner, [&](const auto& offsets) {
      elements[count++] = static_cast<Acc>(input_data[offsets[0]]);
    });
    result_data[row_offsets[1]] = reduce_elements(std::span<const Acc>(elements.get(), count));
  });
}

// Sum and product: Acc is i64 for bool and integers, T itself for floats.
// The neutral start of the lanes: -0.0 for a float sum (-0.0 + x is x, also for x == -0.0).
template <typename T, typename Combine>
void reduce_arithmetic(const Value& input, const AxisSplit& split, const Value& result,
                       std::int64_t identity, Combine combine) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;
  const Acc neutral = std::is_floating_point_v<T> && identity == 0 ? static_cast<Acc>(-0.0)
                                                                   : static_cast<Acc>(identity);
  reduce_each_row<T, Acc, Acc>(input, split, result, [&](std::span<const Acc> elements) {
    return combine_in_order(elements, static_cast<Acc>(identity), neutral,
                            [&](Acc a, Acc b) { return combine(a, b); });
  });
}

template <typename T> void reduce_by_op(Op op, const Value& input, const AxisSplit& split,
                                        const Value& result) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == Op::reduce_any || op == Op::reduce_max) {
      reduce_each_row<T, T, T>(input, split, result, [](std::span<const T> elements) {
        return combine_in_order(elements, false, false, ScalarOp<Op::logical_or>::apply);
      });
      return;
    }
    if (op == Op::reduce_all || op == Op::reduce_min) {
      reduce_each_row<T, T, T>(input, split, result, [](std::span<const T> elements) {
        return combine_in_order(elements, true, true, ScalarOp<Op::logical_and>::apply);
      });
      return;
    }
  } else {
    if (op == Op::reduce_max || op == Op::reduce_min) {
      const bool maximum = op == Op::reduce_max;
      // The lanes start at the lowest (highest) value, which maximum (minimum) returns unchanged.
      const T lowest = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::lowest();
      const T highest = std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
      reduce_each_row<T, T, T>(input, split, result, [&](std::span<const T> elements) {
        // Never empty here (checked before), so the identity is never used.
        return maximum
                   ? combine_in_order(elements, T{}, lowest, ScalarOp<Op::maximum>::apply<T>)
                   : combine_in_order(elements, T{}, highest, ScalarOp<Op::minimum>::apply<T>);
      });
      return;
    }
  }
  switch (op) {
    case Op::reduce_sum:
      reduce_arithmetic<T>(input, split, result, 0,
                           [](auto a, auto b) { return ScalarOp<Op::add>::apply(a, b); });
      return;
    case Op::reduce_prod:
      reduce_arithmetic<T>(input, split, result, 1,
                           [](auto a, auto b) { return ScalarOp<Op::mul>::apply(a, b); });
      return;
    case Op::argmax:
      reduce_each_row<T, T, std::int64_t>(input, split, result, [](std::span<const T> elements) {
        return index_of_first_extreme(elements, [](T a, T b) { return a > b; });
      });
      return;
    case Op::argmin:
      reduce_each_row<T, T, std::int64_t>(input, split, result, [](std::span<const T> elements) {
        return index_of_first_extreme(elements, [](T a, T b) { return a < b; });
      });
      return;
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "interpreter: " << op_name(op) << " is not a reduction of "
                           << dtype_name(dtype_of<T>());
}

bool needs_an_element(Op op) {
  return op == Op::reduce_max || op == Op::reduce_min || op == Op::argmax || op == Op::argmin;
}

}  // namespace

Value evaluate_reduce(const Node& node, const Value& input) {
  const Op op = node.op();
  const auto& attr = node.attr<ReduceAttr>();
  const AxisSplit split = split_axes(node, input.layout, attr.axes);
  const std::int64_t kept_count = checked_numel(split.kept_shape, op_name(op));
  const std::int64_t reduced_count = checked_numel(split.reduced_shape, op_name(op));
  TJ_INTERNAL_CHECK((op != Op::argmax && op != Op::argmin) || attr.axes.size() == 1)
      << "interpreter: " << op_name(op) << " takes one axis, not " << attr.axes.size();
  TJ_CHECK(!(needs_an_element(op) && reduced_count == 0 && kept_count > 0))
      << op_name(op) << ": cannot reduce " << dtype_name(input.dtype)
      << shape_str(input.layout.shape) << " over axes "
      << shape_str(Shape(attr.axes.begin(), attr.axes.end()))
      << ", which hold no elements: the result is undefined";
  TJ_INTERNAL_CHECK(node.dtype() == reduce_result_dtype(op, input.dtype) &&
                    node.numel() == kept_count)
      << "interpreter: " << op_name(op) << " of " << dtype_name(input.dtype)
      << shape_str(input.layout.shape) << " gives " << dtype_name(node.dtype())
      << shape_str(node.shape());
  Value result = allocate_contiguous(node.dtype(), node.shape());
  visit_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // f16 and bf16 reductions run as their f32 form (f32_form.hpp, the driver).
    if constexpr (is_storage_float_v<T>) TJ_INTERNAL_CHECK(false) << "interpreter: reduction of " << dtype_name(input.dtype);
    else reduce_by_op<T>(op, input, split, result);
  });
  return result;
}

}  // namespace tensorjit::ir
