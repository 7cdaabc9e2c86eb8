// cumsum, sort, argsort and topk: one IR node each along one axis (ops.def, "scans" and
// "ordering"); topk is the first k of a stable descending sort. A 0-d tensor is ordered as one
// element (PyTorch), through a reshape to [1] and back.
#include <tensorjit/functions.hpp>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::checked_axis;
using detail::describe;
using detail::node_of;
using detail::wrap;

namespace {

// `x`'s node as the op sees it (0-d as [1]) and the axis made non-negative.
struct AxisOperand {
  ir::NodePtr node;
  int axis;
};

AxisOperand axis_operand(std::string_view name, const Tensor& x, std::int64_t axis) {
  ir::NodePtr node = node_of(x, name);
  if (node->rank() == 0) {
    TJ_CHECK(axis == 0 || axis == -1) << name << ": axis " << axis << " is out of range for the 0-d "
                                      << describe(x) << " (use 0 or -1)";
    return {ir::make_reshape(node, {1}), 0};
  }
  return {node, checked_axis(axis, node->rank(), name, node->shape())};
}

// The result with x's own rank again.
Tensor with_rank_of(const Tensor& x, ir::NodePtr result) {
  return wrap(x.rank() == 0 ? ir::make_reshape(std::move(result), {}) : std::move(result));
}

Tensor order(std::string_view name, ir::Op op, const Tensor& x, std::int64_t axis, bool descending) {
  const AxisOperand operand = axis_operand(name, x, axis);
  const std::int64_t extent = operand.node->shape()[static_cast<std::size_t>(operand.axis)];
  return with_rank_of(x, ir::make_sort(op, operand.node, operand.axis, descending, extent));
}

}  // namespace

Tensor cumsum(const Tensor& x, std::int64_t axis) {
  const AxisOperand operand = axis_operand("cumsum", x, axis);
  return with_rank_of(x, ir::make_cumsum(operand.node, operand.axis));
}

Tensor sort(const Tensor& x, std::int64_t axis, bool descending) {
  return order("sort", ir::Op::sort, x, axis, descending);
}

Tensor argsort(const Tensor& x, std::int64_t axis, bool descending) {
  return order("argsort", ir::Op::argsort, x, axis, descending);
}

TopK topk(const Tensor& x, std::int64_t k, std::int64_t axis) {
  const AxisOperand operand = axis_operand("topk", x, axis);
  const std::int64_t extent = operand.node->shape()[static_cast<std::size_t>(operand.axis)];
  TJ_CHECK(x.rank() > 0 || k == 1) << "topk: a 0-d tensor holds one element; ask for k = 1, not " << k;
  TJ_CHECK(k >= 0 && k <= extent) << "topk: k = " << k << " is outside [0, " << extent
                                  << "], the extent of axis " << axis << " of " << describe(x)
                                  << "; ask for at most as many elements as the axis holds";
  return {with_rank_of(x, ir::make_sort(ir::Op::sort, operand.node, operand.axis, true, k)),
          with_rank_of(x, ir::make_sort(ir::Op::argsort, operand.node, operand.axis, true, k))};
}

}  // namespace tensorjit
