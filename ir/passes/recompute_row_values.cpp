#include "ir/passes/recompute_row_values.hpp"

#include <algorithm>
#include <unordered_set>

namespace tensorjit::ir {
namespace {

// Ops that cost less to compute again than a store and a load of their value.
bool is_cheap(Op op) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::neg:
    case Op::abs:
    case Op::square:
      return true;
    default:
      return false;
  }
}

// The nodes of `part` that `out` is computed from, in the part's order.
std::vector<NodePtr> nodes_of(const Step& part, const Node* out) {
  std::unordered_set<const Node*> inside, needed;
  for (const auto& node : part.nodes) inside.insert(node.get());
  std::vector<const Node*> stack = {out};
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (!inside.count(node) || !needed.insert(node).second) continue;
    for (const auto& in : node->inputs()) stack.push_back(in.get());
  }
  std::vector<NodePtr> nodes;
  for (const auto& node : part.nodes)
    if (needed.count(node.get())) nodes.push_back(node);
  return nodes;
}

// A recomputed value may read up to two values over the rows. Its reader's rows of them are in L1
// anyway (the step reads them), while a scratch row adds a row to what each row keeps in L1: the
// layernorm backward pass, whose dy * x-hat and dy * gamma were stored for the later parts, ran
// 3.7-4.2 ms a call (4096 x 1024 f32, one thread) against 2.8-3.0 with them recomputed
// (docs/reductions.md). With one, as before, the backward pass kept four scratch rows and its
// row no longer fitted in L1 beside x, dy, gamma, dx and the sums' lane rows.
constexpr std::size_t kMaxRowsRead = 2;

// `nodes` in topological order. An op whose operands are the same across each row (per-row
// values, constants) runs once per row whatever it is (the row kernel hoists it), so only the
// others must be cheap.
bool worth_recomputing(const std::vector<NodePtr>& nodes, const Shape& domain) {
  std::unordered_set<const Node*> inside, per_row, column_leaves;
  for (const auto& node : nodes) inside.insert(node.get());
  for (const auto& node : nodes) {
    // A gather reads its table along the row whatever its operands' shapes: never recomputed
    // (its rows stay in the scratch row the prologue writes, fuse_rows.hpp).
    if (node->op() == Op::gather) return false;
    bool same_across_row = true;
    for (const auto& in : node->inputs()) {
      if (inside.count(in.get())) {
        same_across_row = same_across_row && per_row.count(in.get());
        continue;
      }
      const Node* base = view_base(in.get());
      if (is_uniform(*base) || base->shape() != domain) continue;
      same_across_row = false;
      column_leaves.insert(in.get());
    }
    if (same_across_row) {
      per_row.insert(node.get());
    } else if (!is_cheap(node->op())) {
      return false;
    }
  }
  return column_leaves.size() <= kMaxRowsRead;
}

bool reads(const Step& part, const Node* value) {
  for (const auto& node : part.nodes)
    for (const auto& in : node->inputs())
      if (in.get() == value) return true;
  return false;
}

// The pass on one row step over `domain`.
void recompute_in(Step& row_step, const Shape& domain) {
  std::unordered_set<const Node*> step_outputs;
  for (const auto& out : row_step.outputs) step_outputs.insert(out.get());
  std::vector<Step>& parts = row_step.parts;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].kind != Step::Kind::loop) continue;
    for (std::size_t o = parts[p].outputs.size(); o-- > 0;) {
      const NodePtr out = parts[p].outputs[o];
      if (step_outputs.count(out.get()) || out->shape() != domain) continue;
      const std::vector<NodePtr> nodes = nodes_of(parts[p], out.get());
      if (!worth_recomputing(nodes, domain)) continue;
      for (std::size_t r = p + 1; r < parts.size(); ++r) {
        if (!reads(parts[r], out.get())) continue;
        std::vector<NodePtr> front;
        for (const auto& node : nodes)
          if (std::find(parts[r].nodes.begin(), parts[r].nodes.end(), node) == parts[r].nodes.end())
            front.push_back(node);
        parts[r].nodes.insert(parts[r].nodes.begin(), front.begin(), front.end());
      }
      parts[p].outputs.erase(parts[p].outputs.begin() + static_cast<std::ptrdiff_t>(o));
      parts[p].reasons.erase(parts[p].reasons.begin() + static_cast<std::ptrdiff_t>(o));
    }
    // The part keeps what its remaining outputs are computed from.
    std::unordered_set<const Node*> kept;
    for (const auto& out : parts[p].outputs)
      for (const auto& node : nodes_of(parts[p], out.get())) kept.insert(node.get());
    auto& nodes = parts[p].nodes;
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const NodePtr& node) { return !kept.count(node.get()); }),
                nodes.end());
  }
  parts.erase(std::remove_if(parts.begin(), parts.end(),
                             [](const Step& part) {
                               return part.kind == Step::Kind::loop && part.outputs.empty();
                             }),
              parts.end());
}

}  // namespace

Plan recompute_row_values(const Plan& plan) {
  Plan result = plan;
  for (Step& step : result.steps) {
    if (step.kind != Step::Kind::row) continue;
    if (const NodePtr reduction = row_step_reduction(step)) recompute_in(step, reduction->input(0)->shape());
  }
  return result;
}

}  // namespace tensorjit::ir
