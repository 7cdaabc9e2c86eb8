#include <tensorjit/ir/plan.hpp>

#include <array>
#include <fmt/format.h>
#include <unordered_map>

#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/node_map.hpp>

namespace tensorjit::ir {
namespace {

constexpr std::array<std::string_view, kStepKindCount> kStepKindNames = {
    "loop", "single", "reduce", "product", "row", "fill", "scan", "sort", "scatter", "concat"};

}  // namespace

std::vector<std::vector<const Node*>> values_last_read(const Plan& plan) {
  NodeMap<std::size_t> last_reader;
  auto note_reads = [&](const NodePtr& node, std::size_t step) { last_reader[view_base(node.get())] = step; };
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes) for_each_read(*node, [&](const NodePtr& in) { note_reads(in, s); });
  for (const auto& out : plan.graph.outputs) note_reads(out, plan.steps.size());
  std::vector<std::vector<const Node*>> last_read(plan.steps.size());
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes)
      for_each_read(*node, [&](const NodePtr& in) {
        const Node* base = view_base(in.get());
        std::size_t& step = *last_reader.find(base);
        if (step != s) return;
        last_read[s].push_back(base);
        step = plan.steps.size() + 1;  // listed: a later read in this step does not list it again
      });
  return last_read;
}

std::string_view step_kind_name(Step::Kind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kStepKindNames.size() ? kStepKindNames[index] : "?";
}

bool computes_gather(const Step& step) {
  for (const auto& node : step.nodes)
    if (node->op() == Op::gather) return true;
  return false;
}

namespace {

NodePtr reduction_of(const Step& part) {
  if (part.kind != Step::Kind::reduce) return nullptr;
  for (const auto& node : part.nodes)
    if (is_reduce(node->op())) return node;
  return nullptr;
}

}  // namespace

bool reduces_rows(const Step& part) {
  const NodePtr reduction = reduction_of(part);
  if (!reduction) return false;
  const auto& axes = reduction->attr<ReduceAttr>().axes;
  return !axes.empty() && axes.back() != static_cast<int>(reduction->input(0)->shape().size()) - 1;
}

NodePtr row_step_reduction(const Step& step) {
  for (const Step& part : step.parts)
    if (!reduces_rows(part))
      if (NodePtr reduction = reduction_of(part)) return reduction;
  return nullptr;
}

std::string print_plan(const Plan& plan) {
  std::unordered_map<const Node*, std::size_t> position;
  auto order = topological_order(plan.graph);
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i].get()] = i;
  std::string out;
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    const Node* shown = step.nodes.front().get();
    // A row step is shown over its rows: the input of its reductions; a concat step over its result.
    if (step.kind == Step::Kind::concat) shown = step.outputs.front().get();
    for (const auto& n : step.nodes)
      if (step.kind == Step::Kind::row && is_reduce(n->op()) && shown == step.nodes.front().get())
        shown = n->input(0).get();
    const Node& first = *shown;
    out += fmt::format("step {}: {} over {}{}\n", s, step_kind_name(step.kind),
                       dtype_name(first.dtype()), shape_str(first.shape()));
    std::string ops;
    for (const auto& n : step.nodes) {
      // A product's matmul is followed by the ops of its epilogue, run on each tile of C.
      if (step.kind == Step::Kind::product && n == step.nodes[1]) ops += "\n  epilogue";
      ops += fmt::format(" %{}:{}", position[n.get()], op_name(n->op()));
    }
    if (step.kind == Step::Kind::row || step.kind == Step::Kind::concat) {
      // A row step runs its parts in turn on each chunk of rows, while the chunk stays in cache.
      ops.clear();
      for (std::size_t p = 0; p < step.parts.size(); ++p) {
        const Step& part = step.parts[p];
        ops += fmt::format("\n  part {} ({}):", p, reduces_rows(part) ? "reduce over the rows" : step_kind_name(part.kind));
        for (const auto& n : step.parts[p].nodes) ops += fmt::format(" %{}:{}", position[n.get()], op_name(n->op()));
        if (step.kind != Step::Kind::concat) continue;
        for (std::size_t o = 0; o < step.parts[p].outputs.size(); ++o)
          ops += fmt::format("\n    writes %{} ({})", position[step.parts[p].outputs[o].get()], step.parts[p].reasons[o]);
      }
      // A concat step's parts write into its buffer; its other operands are copied there.
      if (step.kind == Step::Kind::concat) {
        ops += "\n  joins";
        for (const auto& n : step.nodes)
          if (n->op() == Op::concat) ops += fmt::format(" %{}:{}", position[n.get()], op_name(n->op()));
      }
    }
    out += fmt::format("  computes{}\n", ops);
    for (std::size_t o = 0; o < step.outputs.size(); ++o)
      out += fmt::format("  writes %{} ({})\n", position[step.outputs[o].get()], step.reasons[o]);
  }
  return out;
}

}  // namespace tensorjit::ir
