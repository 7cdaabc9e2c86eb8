#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/graph.hpp>

#include <unordered_set>

namespace tensorjit::ir {

std::vector<NodePtr> topological_order(const Graph& graph) {
  // Iterative depth-first post-order: deep chains (thousands of ops) must not exhaust the stack.
  std::vector<NodePtr> order;
  std::unordered_set<const Node*> done;
  std::vector<std::pair<NodePtr, std::size_t>> stack;
  for (const auto& out : graph.outputs) {
    if (!out || done.count(out.get())) continue;
    stack.emplace_back(out, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs().size()) {
        const NodePtr& in = node->inputs()[next++];
        if (!done.count(in.get())) stack.emplace_back(in, 0);
        continue;
      }
      if (done.insert(node.get()).second) order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

std::unordered_map<const Node*, int> use_counts(const Graph& graph) {
  std::unordered_map<const Node*, int> counts;
  for (const auto& node : topological_order(graph))
    for (const auto& in : node->inputs()) ++counts[in.get()];
  for (const auto& out : graph.outputs) ++counts[out.get()];
  return counts;
}

Graph replace_nodes(const Graph& graph, const std::function<NodePtr(const NodePtr&)>& replace) {
  std::unordered_map<const Node*, NodePtr> rebuilt;
  for (const auto& node : topological_order(graph)) {
    if (NodePtr replacement = replace(node)) {
      rebuilt[node.get()] = std::move(replacement);
      continue;
    }
    std::vector<NodePtr> inputs;
    inputs.reserve(node->inputs().size());
    for (const auto& in : node->inputs()) inputs.push_back(rebuilt.at(in.get()));
    rebuilt[node.get()] = node->with_inputs(std::move(inputs));
  }
  Graph out;
  for (const auto& node : graph.outputs) out.outputs.push_back(rebuilt.at(node.get()));
  return out;
}

void verify(const Graph& graph) {
  for (const auto& out : graph.outputs) TJ_INTERNAL_CHECK(out) << "verify: a graph output is null";
  for (const auto& node : topological_order(graph)) {
    // Rebuilding through make() re-runs every check (arity, dtypes, shapes, attributes, buffer
    // bounds); the result must agree with what the node says of itself.
    NodePtr again;
    try {
      again = Node::make(node->op(), node->inputs(), node->attrs());
    } catch (const Error& e) {
      TJ_INTERNAL_CHECK(false) << "verify: " << op_name(node->op()) << " node is malformed: " << e.what();
    }
    TJ_INTERNAL_CHECK(again->dtype() == node->dtype() && again->shape() == node->shape())
        << "verify: " << op_name(node->op()) << " node claims " << dtype_name(node->dtype())
        << shape_str(node->shape()) << " but its inputs give " << dtype_name(again->dtype())
        << shape_str(again->shape());
  }
}

}  // namespace tensorjit::ir
