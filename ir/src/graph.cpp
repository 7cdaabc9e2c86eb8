#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/graph.hpp>

#include <tensorjit/ir/node_map.hpp>

#include <array>
#include <cstddef>
#include <memory_resource>

namespace tensorjit::ir {

std::vector<NodePtr> topological_order(const Graph& graph, const std::function<bool(const Node&)>& is_leaf) {
  // Iterative depth-first post-order: deep chains (thousands of ops) must not exhaust the stack.
  // Room for a small graph up front: growing from empty would reallocate the order 4 times. The
  // walk's own stack starts in a stack arena: a small graph's walk allocates only its result.
  std::vector<NodePtr> order;
  order.reserve(16);
  NodeMap<bool> done;
  std::array<std::byte, 512> arena_bytes;
  std::pmr::monotonic_buffer_resource arena(arena_bytes.data(), arena_bytes.size());
  std::pmr::vector<std::pair<const NodePtr*, std::size_t>> stack(&arena);
  stack.reserve(16);
  for (const auto& out : graph.outputs) {
    if (!out || done.contains(out.get())) continue;
    stack.emplace_back(&out, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto& inputs = (*node)->inputs();
      if (next == 0 && is_leaf && is_leaf(**node)) next = inputs.size();
      if (next < inputs.size()) {
        const NodePtr& in = inputs[next++];
        if (!done.contains(in.get())) stack.emplace_back(&in, 0);
        continue;
      }
      if (done.insert(node->get(), true).second) order.push_back(*node);
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
  return replace_nodes(graph, topological_order(graph), replace);
}

Graph replace_nodes(const Graph& graph, const std::vector<NodePtr>& order,
                    const std::function<NodePtr(const NodePtr&)>& replace) {
  NodeMap<NodePtr> rebuilt(order.size());
  for (const auto& node : order) {
    if (NodePtr replacement = replace(node)) {
      rebuilt.insert(node.get(), std::move(replacement));
      continue;
    }
    bool changed = false;
    for (const auto& in : node->inputs()) changed |= *rebuilt.find(in.get()) != in;
    if (!changed) {
      rebuilt.insert(node.get(), node);
      continue;
    }
    std::vector<NodePtr> inputs;
    inputs.reserve(node->inputs().size());
    for (const auto& in : node->inputs()) inputs.push_back(*rebuilt.find(in.get()));
    rebuilt.insert(node.get(), node->with_inputs(std::move(inputs)));
  }
  Graph out;
  for (const auto& node : graph.outputs) out.outputs.push_back(*rebuilt.find(node.get()));
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
