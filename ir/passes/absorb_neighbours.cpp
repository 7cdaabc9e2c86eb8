#include "ir/passes/absorb_neighbours.hpp"

#include <fmt/format.h>
#include <optional>

namespace tensorjit::ir {

NeighbourAbsorber::NeighbourAbsorber(const Plan& plan) : plan_(plan), merged_(plan.steps.size(), false) {
  const auto order = topological_order(plan.graph);
  for (std::size_t i = 0; i < order.size(); ++i) position_[order[i].get()] = i;
  for (const auto& node : order)
    for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
  for (const auto& out : plan.graph.outputs) graph_outputs_.insert(out.get());
}

Step NeighbourAbsorber::absorb(Step::Kind kind, const NodePtr& op) {
  Step step;
  step.kind = kind;
  const auto producer = find_producer(*op);
  const auto consumer = find_consumer(*op);
  if (producer) {
    merged_[*producer] = true;
    const auto& nodes = plan_.steps[*producer].nodes;
    step.nodes.insert(step.nodes.end(), nodes.begin(), nodes.end());
  }
  step.nodes.push_back(op);
  std::unordered_set<const Node*> consumer_nodes;
  if (consumer) {
    merged_[*consumer] = true;
    for (const auto& node : plan_.steps[*consumer].nodes) consumer_nodes.insert(node.get());
  }
  // The op itself is written when a graph output or a node outside its consumers reads it.
  std::string reason;
  if (graph_outputs_.count(op.get())) reason = "graph output";
  if (const auto users = users_.find(op.get()); users != users_.end())
    for (const Node* user : users->second) {
      if (!reason.empty()) break;
      if (!consumer_nodes.count(user)) reason = fmt::format("read by %{}", position_.at(user));
    }
  if (!reason.empty()) {
    step.outputs.push_back(op);
    step.reasons.push_back(std::move(reason));
  }
  if (consumer) {
    const Step& loop = plan_.steps[*consumer];
    step.nodes.insert(step.nodes.end(), loop.nodes.begin(), loop.nodes.end());
    step.outputs.insert(step.outputs.end(), loop.outputs.begin(), loop.outputs.end());
    step.reasons.insert(step.reasons.end(), loop.reasons.begin(), loop.reasons.end());
  }
  return step;
}

Plan NeighbourAbsorber::result(std::vector<Step> replaced) const {
  Plan fused;
  fused.graph = plan_.graph;
  for (std::size_t s = 0; s < replaced.size(); ++s)
    if (!merged_[s]) fused.steps.push_back(std::move(replaced[s]));
  return fused;
}

std::optional<std::size_t> NeighbourAbsorber::find_producer(const Node& op) const {
  const Node* operand = op.input(0).get();
  const auto users = users_.find(operand);
  if (graph_outputs_.count(operand) || users == users_.end() || users->second.size() != 1) return std::nullopt;
  for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
    const Step& step = plan_.steps[s];
    if (step.kind == Step::Kind::loop && !merged_[s] && !computes_gather(step) && step.outputs.size() == 1 &&
        step.outputs.front().get() == operand)
      return s;
  }
  return std::nullopt;
}

std::optional<std::size_t> NeighbourAbsorber::find_consumer(const Node& op) const {
  for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
    const Step& step = plan_.steps[s];
    if (step.kind != Step::Kind::loop || merged_[s] || computes_gather(step)) continue;
    std::unordered_set<const Node*> inside;
    for (const auto& node : step.nodes) inside.insert(node.get());
    bool reads_op = false, reads_only_leaves = true;
    for (const auto& node : step.nodes)
      for (const auto& in : node->inputs()) {
        if (inside.count(in.get())) continue;
        if (in.get() == &op) {
          reads_op = true;
          continue;
        }
        const Op base = view_base(in.get())->op();
        if (!is_source(base)) reads_only_leaves = false;
      }
    if (reads_op && reads_only_leaves) return s;
  }
  return std::nullopt;
}

}  // namespace tensorjit::ir
