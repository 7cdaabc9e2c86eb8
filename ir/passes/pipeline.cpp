#include <tensorjit/ir/pipeline.hpp>

#include <array>
#include <unordered_set>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/f32_form.hpp>

#include "ir/passes/canonicalize.hpp"
#include "ir/passes/fold_views.hpp"
#include "ir/passes/fuse.hpp"
#include "ir/passes/fuse_epilogues.hpp"
#include "ir/passes/fuse_reductions.hpp"
#include "ir/passes/fuse_rows.hpp"
#include "ir/passes/fuse_scans.hpp"
#include "ir/passes/recompute_row_values.hpp"

namespace tensorjit::ir {
namespace {

// A pass over the graph alone, before any step exists.
template <Graph (*pass)(const Graph&)> Plan on_graph(const Plan& plan) {
  TJ_INTERNAL_CHECK(plan.steps.empty()) << "pipeline: a graph pass runs after fuse";
  return Plan{pass(plan.graph), {}};
}

// The plan as fuse partitions it; the graph is fold_views' output.
Plan fuse_graph(const Plan& plan) {
  TJ_INTERNAL_CHECK(plan.steps.empty()) << "pipeline: fuse runs twice";
  return fuse(plan.graph);
}

constexpr std::array<NamedPass, 8> kPipeline = {{
    // name                  pass                    on the graph
    {"canonicalize",          on_graph<canonicalize>, true},
    {"fold_views",            on_graph<fold_views>,   true},
    {"fuse",                  fuse_graph,             false},
    {"fuse_reductions",       fuse_reductions,        false},
    {"fuse_scans",            fuse_scans,             false},
    {"fuse_rows",             fuse_rows,              false},
    {"recompute_row_values",  recompute_row_values,   false},
    {"fuse_epilogues",        fuse_epilogues,         false},
}};

bool same_nodes(const std::vector<NodePtr>& a, const std::vector<NodePtr>& b) { return a == b; }

bool same_step(const Step& a, const Step& b) {
  if (a.kind != b.kind || !same_nodes(a.nodes, b.nodes) || !same_nodes(a.outputs, b.outputs) ||
      a.parts.size() != b.parts.size())
    return false;
  for (std::size_t p = 0; p < a.parts.size(); ++p)
    if (!same_step(a.parts[p], b.parts[p])) return false;
  return true;
}

bool same_plan(const Plan& a, const Plan& b) {
  if (!same_nodes(a.graph.outputs, b.graph.outputs) || a.steps.size() != b.steps.size()) return false;
  for (std::size_t s = 0; s < a.steps.size(); ++s)
    if (!same_step(a.steps[s], b.steps[s])) return false;
  return true;
}

// Every node a step computes, parts included.
void collect_nodes(const Step& step, std::unordered_set<const Node*>& inside) {
  for (const auto& node : step.nodes) inside.insert(node.get());
  for (const auto& part : step.parts) collect_nodes(part, inside);
}

}  // namespace

std::span<const NamedPass> pipeline_passes() { return kPipeline; }

void verify_plan(const Plan& plan) {
  // Values a later step may read: sources (an iota no step writes is computed by its readers'
  // kernels), and what earlier steps wrote.
  std::unordered_set<const Node*> available;
  auto readable = [&](const NodePtr& node) {
    const Node* base = view_base(node.get());
    return available.count(base) || is_source(base->op());
  };
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    const std::string_view kind = step_kind_name(step.kind);
    TJ_INTERNAL_CHECK(!step.nodes.empty()) << "plan: step " << s << " (" << kind << ") computes nothing";
    TJ_INTERNAL_CHECK(step.reasons.size() == step.outputs.size())
        << "plan: step " << s << " (" << kind << ") gives " << step.reasons.size() << " reasons for "
        << step.outputs.size() << " outputs";
    std::unordered_set<const Node*> inside;
    collect_nodes(step, inside);
    // A matmul reads a widening cast of f16/bf16 that no step computes through the value under
    // it, which its GEMM converts (fuse.hpp): that value must be readable, the cast need not.
    auto converted = [&](const Node& node, const NodePtr& in) {
      return node.op() == Op::matmul && widens_storage_float(*in) &&
             (inside.count(in->input(0).get()) || readable(in->input(0)));
    };
    for (const auto& node : step.nodes)
      for (const auto& in : node->inputs())
        TJ_INTERNAL_CHECK(inside.count(in.get()) || inside.count(view_base(in.get())) || readable(in) ||
                          converted(*node, in))
            << "plan: step " << s << " (" << kind << ") reads %" << op_name(in->op()) << " "
            << shape_str(in->shape()) << ", which no earlier step computes";
    for (const auto& out : step.outputs) {
      TJ_INTERNAL_CHECK(inside.count(out.get()))
          << "plan: step " << s << " (" << kind << ") writes " << op_name(out->op()) << " "
          << shape_str(out->shape()) << ", which it does not compute";
      available.insert(out.get());
    }
  }
  for (const auto& out : plan.graph.outputs)
    TJ_INTERNAL_CHECK(readable(out)) << "plan: the graph output " << op_name(out->op()) << " "
                                     << shape_str(out->shape()) << " is computed by no step";
}

Plan plan_graph(const Graph& graph, PipelineLog* log) {
  Plan plan{graph, {}};
  for (const NamedPass& pass : kPipeline) {
    const auto start = std::chrono::steady_clock::now();
    Plan after = pass.run(plan);
    if (!same_nodes(after.graph.outputs, plan.graph.outputs)) verify(after.graph);
#ifndef NDEBUG
    if (!pass.on_graph) verify_plan(after);
#endif
    if (log)
      log->passes.push_back(
          PassRecord{std::string(pass.name), !same_plan(plan, after), std::chrono::steady_clock::now() - start, after});
    plan = std::move(after);
  }
  return plan;
}

}  // namespace tensorjit::ir
