#include "runtime/src/step_expression.hpp"

namespace tensorjit::detail {

ExpressionRebuilder::ExpressionRebuilder(const std::vector<ir::NodePtr>& ops, LeafFor leaf_for)
    : ExpressionRebuilder(ops.begin(), ops.end(), std::move(leaf_for)) {}

ir::NodePtr ExpressionRebuilder::rebuild(const ir::NodePtr& node) {
  if (auto found = rebuilt_.find(node.get()); found != rebuilt_.end()) return found->second;
  ir::NodePtr result;
  if (inside_.count(node.get())) {
    std::vector<ir::NodePtr> inputs;
    inputs.reserve(node->inputs().size());
    for (const auto& in : node->inputs()) {
      // A gather's operand 0 is a leaf of its own, even when the expression also reads the same
      // node as a value: the kernel reads it only at the gather's indices.
      const bool gathered = node->op() == ir::Op::gather && inputs.empty();
      if (gathered && !gathered_for_) return nullptr;
      inputs.push_back(gathered ? gathered_for_(node, in) : rebuild(in));
      if (!inputs.back()) return nullptr;
    }
    result = node->with_inputs(std::move(inputs));
  } else if (node->op() == ir::Op::constant) {
    result = node;
  } else {
    result = leaf_for_(node);
    if (!result) return nullptr;
  }
  rebuilt_[node.get()] = result;
  return result;
}

}  // namespace tensorjit::detail
