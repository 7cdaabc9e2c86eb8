#include "fuzz/graph_shrinker.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/interpreter.hpp>

namespace tensorjit::testing {
namespace {

std::size_t node_count(const ir::Graph& graph) { return ir::topological_order(graph).size(); }

// `graph` with `node` standing in for `target`, or nothing when that is `graph` itself.
std::optional<ir::Graph> with_node_as(const ir::Graph& graph, const ir::NodePtr& target, const ir::NodePtr& node) {
  if (node == target) return std::nullopt;
  return ir::replace_nodes(graph, [&](const ir::NodePtr& n) { return n == target ? node : nullptr; });
}

// An input over the value the interpreter computes for `node`, or null when it cannot.
ir::NodePtr cut_at(const ir::NodePtr& node) {
  try {
    const ir::Value value = ir::interpret(ir::Graph{{node}}).at(0);
    return ir::make_input(value.buffer, value.dtype, value.layout);
  } catch (const Error&) {
    return nullptr;
  }
}

class Shrinker {
 public:
  Shrinker(ir::Graph graph, const std::function<bool(const ir::Graph&)>& fails, int budget)
      : graph_(std::move(graph)), fails_(fails), budget_(budget) {}

  ir::Graph run() {
    keep_one_output();
    bool progress = true;
    while (progress && budget_ > 0) {
      progress = false;
      // From the outputs up: a move near the outputs removes the most nodes.
      std::vector<ir::NodePtr> order = ir::topological_order(graph_);
      std::reverse(order.begin(), order.end());
      for (const auto& node : order) {
        if (budget_ <= 0) break;
        if (node->op() == ir::Op::input) continue;
        if (try_moves(node)) {
          progress = true;
          break;  // the order is stale: walk the smaller graph again
        }
      }
    }
    return graph_;
  }

 private:
  bool try_moves(const ir::NodePtr& node) {
    if (graph_.outputs.size() == 1 && graph_.outputs[0] == node)
      for (const auto& operand : node->inputs())
        if (accept(ir::Graph{{operand}})) return true;
    for (const auto& operand : node->inputs())
      if (operand->dtype() == node->dtype() && operand->shape() == node->shape() && accept(with_node_as(graph_, node, operand)))
        return true;
    if (!ir::is_source(node->op()) || node->op() == ir::Op::iota)
      if (ir::NodePtr input = cut_at(node)) return accept(with_node_as(graph_, node, input));
    return false;
  }

  void keep_one_output() {
    if (graph_.outputs.size() < 2) return;
    for (const auto& output : graph_.outputs)
      if (accept(ir::Graph{{output}}, /*smaller_only=*/false)) return;
  }

  // Takes `candidate` when the check still fails on it and it is smaller.
  bool accept(const std::optional<ir::Graph>& candidate, bool smaller_only = true) {
    if (!candidate || budget_ <= 0) return false;
    if (smaller_only && node_count(*candidate) >= node_count(graph_)) return false;
    --budget_;
    if (!fails_(*candidate)) return false;
    graph_ = *candidate;
    return true;
  }

  ir::Graph graph_;
  const std::function<bool(const ir::Graph&)>& fails_;
  int budget_;
};

}  // namespace

ir::Graph shrink_graph(const ir::Graph& failing, const std::function<bool(const ir::Graph&)>& fails, int budget) {
  return Shrinker(failing, fails, budget).run();
}

}  // namespace tensorjit::testing
