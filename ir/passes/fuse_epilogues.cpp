#include "ir/passes/fuse_epilogues.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace tensorjit::ir {
namespace {

bool is_floating_matmul_step(const Step& step) {
  return step.kind == Step::Kind::single && step.nodes.front()->op() == Op::matmul &&
         is_floating(step.nodes.front()->dtype());
}

class EpilogueFuser {
 public:
  explicit EpilogueFuser(const Plan& plan) : plan_(plan) {
    for (const auto& node : topological_order(plan.graph))
      for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
    for (const auto& out : plan.graph.outputs) graph_outputs_.insert(out.get());
    for (std::size_t s = 0; s < plan.steps.size(); ++s)
      if (plan.steps[s].kind == Step::Kind::loop && !computes_gather(plan.steps[s]))
        for (const auto& node : plan.steps[s].nodes) loop_step_of_[node.get()] = s;
  }

  Plan fuse() {
    std::unordered_map<std::size_t, std::size_t> product_of_loop;  // loop step -> matmul step
    std::unordered_set<std::size_t> absorbed;                      // matmul steps merged away
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      if (!is_floating_matmul_step(plan_.steps[s])) continue;
      std::optional<std::size_t> loop = consuming_loop(*plan_.steps[s].nodes.front());
      if (!loop || product_of_loop.count(*loop)) continue;
      product_of_loop[*loop] = s;
      absorbed.insert(s);
    }
    Plan fused;
    fused.graph = plan_.graph;
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      if (absorbed.count(s)) continue;
      auto merged = product_of_loop.find(s);
      fused.steps.push_back(merged == product_of_loop.end()
                                ? plan_.steps[s]
                                : product_step(plan_.steps[merged->second], plan_.steps[s]));
    }
    return fused;
  }

 private:
  // The loop step that may become `matmul`'s epilogue, if the header's conditions hold.
  std::optional<std::size_t> consuming_loop(const Node& matmul) const {
    auto users = users_.find(&matmul);
    if (users == users_.end()) return std::nullopt;
    std::optional<std::size_t> loop;
    for (const Node* user : users->second) {
      auto step = loop_step_of_.find(user);
      if (step == loop_step_of_.end() || (loop && *loop != step->second)) return std::nullopt;
      loop = step->second;
    }
    if (plan_.steps[*loop].nodes.front()->shape() != matmul.shape()) return std::nullopt;
    return loop;
  }

  Step product_step(const Step& matmul_step, const Step& loop_step) const {
    const NodePtr& matmul = matmul_step.nodes.front();
    Step step;
    step.kind = Step::Kind::product;
    step.nodes.push_back(matmul);
    step.nodes.insert(step.nodes.end(), loop_step.nodes.begin(), loop_step.nodes.end());
    if (graph_outputs_.count(matmul.get())) {
      step.outputs.push_back(matmul);
      step.reasons.push_back("graph output (the product itself, written by the GEMM)");
    }
    step.outputs.insert(step.outputs.end(), loop_step.outputs.begin(), loop_step.outputs.end());
    step.reasons.insert(step.reasons.end(), loop_step.reasons.begin(), loop_step.reasons.end());
    return step;
  }

  const Plan& plan_;
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_set<const Node*> graph_outputs_;
  std::unordered_map<const Node*, std::size_t> loop_step_of_;
};

}  // namespace

Plan fuse_epilogues(const Plan& plan) { return EpilogueFuser(plan).fuse(); }

}  // namespace tensorjit::ir
