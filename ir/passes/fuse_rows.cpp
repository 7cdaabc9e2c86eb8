#include "ir/passes/fuse_rows.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <tensorjit/ir/view.hpp>

namespace tensorjit::ir {
namespace {

// The rows of a row step: the input shape of its reductions and the first reduced axis.
struct Rows {
  Shape domain;
  int first_axis = 0;
};

// A reduce step whose reduction takes the trailing axes [r, rank) of its input, r < rank.
std::optional<Rows> rows_of(const Step& step) {
  if (step.kind != Step::Kind::reduce) return std::nullopt;
  for (const auto& node : step.nodes) {
    if (!is_reduce(node->op())) continue;
    // argmax and argmin are one pass in their reduce kernel; row kernels do not lower them.
    if (node->op() == Op::argmax || node->op() == Op::argmin) return std::nullopt;
    const Shape& shape = node->input(0)->shape();
    const auto& axes = node->attr<ReduceAttr>().axes;
    const int rank = static_cast<int>(shape.size());
    if (axes.empty() || axes.back() != rank - 1) return std::nullopt;
    for (std::size_t i = 0; i < axes.size(); ++i)
      if (axes[i] != rank - static_cast<int>(axes.size() - i)) return std::nullopt;
    return Rows{shape, axes.front()};
  }
  return std::nullopt;
}

class RowFuser {
 public:
  explicit RowFuser(const Plan& plan) : plan_(plan) {
    for (const auto& node : topological_order(plan.graph))
      for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
    for (const auto& out : plan.graph.outputs) graph_outputs_.insert(out.get());
  }

  Plan run() {
    Plan fused;
    fused.graph = plan_.graph;
    for (std::size_t s = 0; s < plan_.steps.size();) {
      const Run run = run_from(s);
      if (run.members.size() >= 2) {
        for (std::size_t moved : run.moved) fused.steps.push_back(plan_.steps[moved]);
        fused.steps.push_back(row_step(run.members));
        s = run.members.back() + 1;
      } else {
        fused.steps.push_back(plan_.steps[s++]);
      }
    }
    return fused;
  }

 private:
  // The steps of a row step, and the steps between them that read nothing the run writes: those
  // run before the row step instead.
  struct Run {
    std::vector<std::size_t> members;
    std::vector<std::size_t> moved;
  };

  Run run_from(std::size_t first) {
    Run run;
    run.members.push_back(first);
    const auto rows = rows_of(plan_.steps[first]);
    if (!rows) return run;
    rows_ = *rows;
    written_.clear();
    note_writes(plan_.steps[first]);
    std::vector<std::size_t> pending;
    for (std::size_t s = first + 1; s < plan_.steps.size(); ++s) {
      if (joins(plan_.steps[s])) {
        run.moved.insert(run.moved.end(), pending.begin(), pending.end());
        pending.clear();
        run.members.push_back(s);
        note_writes(plan_.steps[s]);
      } else if (reads_the_run(plan_.steps[s])) {
        break;
      } else {
        pending.push_back(s);
      }
    }
    return run;
  }

  bool reads_the_run(const Step& step) const {
    for (const auto& node : step.nodes)
      for (const auto& in : node->inputs()) {
        if (written_.count(view_base(in.get()))) return true;
      }
    return false;
  }

  void note_writes(const Step& step) {
    for (const auto& out : step.outputs) written_.insert(out.get());
  }

  bool joins(const Step& step) {
    if (step.kind == Step::Kind::reduce) {
      const auto rows = rows_of(step);
      if (!rows || rows->domain != rows_.domain || rows->first_axis != rows_.first_axis)
        return false;
    } else if (step.kind != Step::Kind::loop || computes_gather(step) || step.nodes.front()->shape() != rows_.domain) {
      return false;
    }
    std::unordered_set<const Node*> inside;
    for (const auto& node : step.nodes) inside.insert(node.get());
    bool connected = false;
    for (const auto& node : step.nodes)
      for (const auto& in : node->inputs()) {
        if (inside.count(in.get())) continue;
        const Node* base = view_base(in.get());
        if (!written_.count(base)) continue;
        connected = true;
        if (!row_local_read(*in, *base)) return false;
      }
    return connected;
  }

  // Whether reading `read` (a view chain over `base`, or base itself) at element i of a row of the
  // domain reads only what the same row computed.
  bool row_local_read(const Node& read, const Node& base) {
    if (base.shape() == rows_.domain) return &read == &base;
    if (read.shape() != rows_.domain) return false;
    std::vector<const Node*> chain;
    for (const Node* n = &read; n != &base; n = n->input(0).get()) chain.push_back(n);
    std::optional<Layout> layout = Layout::contiguous(base.shape());
    for (auto it = chain.rbegin(); it != chain.rend() && layout; ++it)
      layout = apply_view(*layout, **it);
    if (!layout || layout->offset != 0) return false;
    // Row k of the domain (its leading axes) must read the base's element k, whatever the column.
    Shape leading(rows_.domain.begin(), rows_.domain.begin() + rows_.first_axis);
    const Strides row_strides = Layout::contiguous(leading).strides;
    std::int64_t base_count = 1;
    for (auto e : base.shape()) base_count *= e;
    std::int64_t row_count = 1;
    for (auto e : leading) row_count *= e;
    if (base_count != row_count) return false;
    for (std::size_t d = 0; d < rows_.domain.size(); ++d) {
      const bool row_axis = static_cast<int>(d) >= rows_.first_axis;
      const std::int64_t expected = row_axis ? 0 : row_strides[d];
      if (rows_.domain[d] != 1 && layout->strides[d] != expected) return false;
    }
    return true;
  }

  Step row_step(const std::vector<std::size_t>& members) {
    Step step;
    step.kind = Step::Kind::row;
    std::unordered_set<const Node*> inside;
    for (std::size_t s : members)
      for (const auto& node : plan_.steps[s].nodes) inside.insert(node.get());
    for (std::size_t s : members) {
      const Step& part = plan_.steps[s];
      step.parts.push_back(part);
      step.nodes.insert(step.nodes.end(), part.nodes.begin(), part.nodes.end());
      for (std::size_t o = 0; o < part.outputs.size(); ++o) {
        const Node* out = part.outputs[o].get();
        bool read_outside = graph_outputs_.count(out) != 0;
        for (const Node* user : users_[out]) read_outside = read_outside || !inside.count(user);
        if (read_outside || out->shape() != rows_.domain) {
          step.outputs.push_back(part.outputs[o]);
          step.reasons.push_back(read_outside ? part.reasons[o]
                                              : "a per-row value of the row step");
        }
      }
    }
    return step;
  }

  const Plan& plan_;
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_set<const Node*> graph_outputs_;
  Rows rows_;
  std::unordered_set<const Node*> written_;
};

}  // namespace

Plan fuse_rows(const Plan& plan) { return RowFuser(plan).run(); }

}  // namespace tensorjit::ir
