// vjp (vjp.hpp): reverse mode over a graph. The nodes that lie on a path from some x to y are
// visited in reverse topological order, each passing its adjoint to its operands through its row
// of the VJP table; a node reached by several paths sums the contributions in that order.
#include <tensorjit/ir/vjp.hpp>

#include <unordered_map>
#include <unordered_set>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

std::vector<NodePtr> vjp(const NodePtr& y, const std::vector<NodePtr>& xs, const NodePtr& dy) {
  TJ_INTERNAL_CHECK(dy->shape() == y->shape() && dy->dtype() == y->dtype())
      << "vjp: dy " << dtype_name(dy->dtype()) << shape_str(dy->shape()) << " does not match y "
      << dtype_name(y->dtype()) << shape_str(y->shape());
  const std::vector<NodePtr> order = topological_order(Graph{{y}});

  // The nodes that depend on some x through floating values: only they carry adjoints that reach
  // an x, so nothing is built for the rest of the graph.
  std::unordered_set<const Node*> wanted;
  for (const auto& node : xs) wanted.insert(node.get());
  std::unordered_set<const Node*> relevant;
  for (const auto& node : order) {
    if (!is_floating(node->dtype())) continue;
    bool depends = wanted.contains(node.get());
    for (const auto& input : node->inputs()) depends = depends || relevant.contains(input.get());
    if (depends) relevant.insert(node.get());
  }

  std::unordered_map<const Node*, NodePtr> adjoint;
  if (relevant.contains(y.get())) adjoint[y.get()] = dy;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodePtr& node = *it;
    auto found = adjoint.find(node.get());
    if (found == adjoint.end()) continue;
    const VjpRow& row = vjp_row(node->op());
    if (row.kind != VjpKind::differentiable) continue;
    std::vector<NodePtr> contributions = row.rule(node, found->second);
    TJ_INTERNAL_CHECK(contributions.size() == node->inputs().size())
        << "vjp: the rule of " << op_name(node->op()) << " gave " << contributions.size()
        << " adjoints for " << node->inputs().size() << " operands";
    for (std::size_t i = 0; i < contributions.size(); ++i) {
      const NodePtr& input = node->input(static_cast<int>(i));
      NodePtr& contribution = contributions[i];
      if (!contribution || !relevant.contains(input.get())) continue;
      TJ_INTERNAL_CHECK(contribution->shape() == input->shape() && contribution->dtype() == input->dtype())
          << "vjp: the rule of " << op_name(node->op()) << " gave operand " << i << " an adjoint "
          << dtype_name(contribution->dtype()) << shape_str(contribution->shape()) << " for "
          << dtype_name(input->dtype()) << shape_str(input->shape());
      auto [slot, fresh] = adjoint.try_emplace(input.get(), contribution);
      if (!fresh) slot->second = make_binary(Op::add, slot->second, contribution);
    }
  }

  std::vector<NodePtr> result;
  result.reserve(xs.size());
  for (const auto& node : xs) {
    auto found = adjoint.find(node.get());
    result.push_back(found != adjoint.end()
                         ? found->second
                         : make_constant(node->dtype(), node->shape(), Scalar::of(node->dtype(), 0)));
  }
  return result;
}

}  // namespace tensorjit::ir
