#include "ir/passes/fuse_reductions.hpp"

#include <fmt/format.h>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace tensorjit::ir {
namespace {

// The reductions the JIT lowers (codegen/reduce_kernel.hpp): all of them.
bool is_fusable_reduction(const Node& node) { return is_reduce(node.op()); }

class ReductionFuser {
 public:
  explicit ReductionFuser(const Plan& plan) : plan_(plan) {
    const auto order = topological_order(plan.graph);
    for (std::size_t i = 0; i < order.size(); ++i) position_[order[i].get()] = i;
    for (const auto& node : order)
      for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
    for (const auto& out : plan.graph.outputs) graph_outputs_.insert(out.get());
  }

  Plan run() {
    merged_.assign(plan_.steps.size(), false);
    std::vector<Step> steps(plan_.steps);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const Step& step = plan_.steps[s];
      if (step.kind == Step::Kind::single && is_fusable_reduction(*step.nodes.front()))
        steps[s] = reduce_step(step);
    }
    Plan fused;
    fused.graph = plan_.graph;
    for (std::size_t s = 0; s < steps.size(); ++s)
      if (!merged_[s]) fused.steps.push_back(std::move(steps[s]));
    return fused;
  }

 private:
  Step reduce_step(const Step& single) {
    const NodePtr& reduction = single.nodes.front();
    Step step;
    step.kind = Step::Kind::reduce;
    const auto producer = find_producer(*reduction);
    const auto consumer = find_consumer(*reduction);
    if (producer) {
      merged_[*producer] = true;
      const auto& nodes = plan_.steps[*producer].nodes;
      step.nodes.insert(step.nodes.end(), nodes.begin(), nodes.end());
    }
    step.nodes.push_back(reduction);
    std::unordered_set<const Node*> consumer_nodes;
    if (consumer) {
      merged_[*consumer] = true;
      for (const auto& node : plan_.steps[*consumer].nodes) consumer_nodes.insert(node.get());
    }
    // The reduction itself is written when a graph output or a node outside its consumers reads it.
    std::string reason;
    if (graph_outputs_.count(reduction.get())) reason = "graph output";
    for (const Node* user : users_[reduction.get()]) {
      if (!reason.empty()) break;
      if (!consumer_nodes.count(user)) reason = fmt::format("read by %{}", position_[user]);
    }
    if (!reason.empty()) {
      step.outputs.push_back(reduction);
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

  // The loop step whose one output is the reduction's operand, read by the reduction alone.
  std::optional<std::size_t> find_producer(const Node& reduction) {
    const Node* operand = reduction.input(0).get();
    if (graph_outputs_.count(operand) || users_[operand].size() != 1) return std::nullopt;
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      const Step& step = plan_.steps[s];
      if (step.kind == Step::Kind::loop && !merged_[s] && step.outputs.size() == 1 &&
          step.outputs.front().get() == operand)
        return s;
    }
    return std::nullopt;
  }

  // A loop step that reads the reduction directly and otherwise only inputs and constants.
  std::optional<std::size_t> find_consumer(const Node& reduction) {
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      const Step& step = plan_.steps[s];
      if (step.kind != Step::Kind::loop || merged_[s]) continue;
      std::unordered_set<const Node*> inside;
      for (const auto& node : step.nodes) inside.insert(node.get());
      bool reads_reduction = false, reads_only_leaves = true;
      for (const auto& node : step.nodes)
        for (const auto& in : node->inputs()) {
          if (inside.count(in.get())) continue;
          if (in.get() == &reduction) {
            reads_reduction = true;
            continue;
          }
          const Op base = view_base(in.get())->op();
          if (base != Op::input && base != Op::constant) reads_only_leaves = false;
        }
      if (reads_reduction && reads_only_leaves) return s;
    }
    return std::nullopt;
  }

  const Plan& plan_;
  std::unordered_map<const Node*, std::size_t> position_;
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_set<const Node*> graph_outputs_;
  std::vector<bool> merged_;
};

}  // namespace

Plan fuse_reductions(const Plan& plan) { return ReductionFuser(plan).run(); }

}  // namespace tensorjit::ir
