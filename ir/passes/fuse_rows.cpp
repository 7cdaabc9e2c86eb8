#include "ir/passes/fuse_rows.hpp"

#include <algorithm>
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

// A reduce step that sums each column of its input over the leading axes [0, k), 0 < k < rank,
// with no consumer, in f32 or f64: it may join a row step over that input's rows as a part that
// reduces over the rows (row_kernel.hpp, "column_reduce"), so that a backward pass's column sums
// (layernorm's dgamma and dbeta, a bias's gradient) read the rows the row step reads anyway.
std::optional<Rows> summed_over_rows(const Step& step) {
  if (step.kind != Step::Kind::reduce || step.nodes.back()->op() != Op::reduce_sum) return std::nullopt;
  const Node& reduction = *step.nodes.back();
  const Shape& shape = reduction.input(0)->shape();
  const auto& axes = reduction.attr<ReduceAttr>().axes;
  const DType dtype = reduction.input(0)->dtype();
  if ((dtype != DType::f32 && dtype != DType::f64) || axes.empty() || axes.size() >= shape.size())
    return std::nullopt;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != static_cast<int>(i)) return std::nullopt;
  return Rows{shape, static_cast<int>(axes.size())};
}

// Whether `step` reads only the plan's sources (inputs, constants, iotas): nothing a step writes.
bool reads_sources_only(const Step& step, const std::unordered_set<const Node*>& written) {
  std::unordered_set<const Node*> inside;
  for (const auto& node : step.nodes) inside.insert(node.get());
  bool only_sources = true;
  for (const auto& node : step.nodes)
    for_each_read(*node, [&](const NodePtr& in) {
      if (!inside.count(in.get()) && written.count(view_base(in.get()))) only_sources = false;
    });
  return only_sources;
}

// The plan with each loop step that reads only sources moved to just before the first step that
// reads it (legal: it depends on no step). fuse gives such a step the first place, before the
// reductions whose row step would read it (dy * gamma in a layernorm's backward pass); placed
// among its readers, it can join their row step, which then computes it from the inputs instead
// of reading a materialised copy. Likewise a column sum of sources (layernorm's dbeta, the sum of
// dy over the rows), which then comes after the row step it may join.
Plan with_source_loops_late(const Plan& plan) {
  std::unordered_set<const Node*> written;
  for (const auto& step : plan.steps)
    for (const auto& out : step.outputs) written.insert(out.get());
  Plan ordered;
  ordered.graph = plan.graph;
  std::vector<const Step*> held;
  for (const auto& step : plan.steps) {
    if ((step.kind == Step::Kind::loop || summed_over_rows(step)) && reads_sources_only(step, written)) {
      held.push_back(&step);
      continue;
    }
    std::unordered_set<const Node*> read;
    for (const auto& node : step.nodes)
      for_each_read(*node, [&](const NodePtr& in) { read.insert(view_base(in.get())); });
    for (auto it = held.begin(); it != held.end();) {
      const bool needed = std::any_of((*it)->outputs.begin(), (*it)->outputs.end(),
                                      [&](const NodePtr& out) { return read.count(out.get()) != 0; });
      if (!needed) {
        ++it;
        continue;
      }
      ordered.steps.push_back(**it);
      it = held.erase(it);
    }
    ordered.steps.push_back(step);
  }
  for (const Step* step : held) ordered.steps.push_back(*step);
  return ordered;
}

class RowFuser {
 public:
  explicit RowFuser(const Plan& plan) : plan_(with_source_loops_late(plan)) {
    for (const auto& node : topological_order(plan_.graph))
      for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
    for (const auto& out : plan_.graph.outputs) graph_outputs_.insert(out.get());
  }

  Plan run() {
    Plan fused;
    fused.graph = plan_.graph;
    for (std::size_t s = 0; s < plan_.steps.size();) {
      const Run run = run_from(s);
      if (run.members.size() >= 2) {
        // Steps after the last member are left where they are, for the scan that goes on there.
        for (std::size_t moved : run.moved)
          if (moved < run.members.back()) fused.steps.push_back(plan_.steps[moved]);
        fused.steps.push_back(row_step(run.members));
        for (std::size_t deferred : run.deferred)
          if (deferred < run.members.back()) fused.steps.push_back(plan_.steps[deferred]);
        s = run.members.back() + 1;
      } else {
        fused.steps.push_back(plan_.steps[s++]);
      }
    }
    return fused;
  }

 private:
  // The steps of a row step; the steps between them that read nothing the run writes, which run
  // before the row step instead; and those that read the run without joining it (a product of
  // the step's output, say), which run after it, in order.
  struct Run {
    std::vector<std::size_t> members;
    std::vector<std::size_t> moved;
    std::vector<std::size_t> deferred;
  };

  Run run_from(std::size_t first) {
    Run run;
    run.members.push_back(first);
    const auto rows = plan_.steps[first].kind == Step::Kind::loop ? prologue_rows(first) : rows_of(plan_.steps[first]);
    if (!rows) return run;
    rows_ = *rows;
    written_.clear();
    on_trial_.clear();
    deferred_writes_.clear();
    note_writes(plan_.steps[first], written_);
    std::vector<std::size_t> pending;
    for (std::size_t s = first + 1; s < plan_.steps.size(); ++s) {
      const Step& step = plan_.steps[s];
      // A step that reads a deferred one must follow it, after the row step.
      const bool after_deferred = reads(step, deferred_writes_);
      if (!after_deferred && joins(step)) {
        run.moved.insert(run.moved.end(), pending.begin(), pending.end());
        pending.clear();
        run.members.push_back(s);
        note_writes(step, written_);
      } else if (after_deferred || reads(step, written_)) {
        run.deferred.push_back(s);
        note_writes(step, deferred_writes_);
      } else {
        pending.push_back(s);
      }
    }
    drop_unread_trials(run);
    return run;
  }

  // A loop step that gathers (computes_gather) starts a run as its prologue when the first step
  // that reads it is a reduce step over its domain's trailing axes, with at least one row axis:
  // the embedding block, layernorm(take(word_emb, ids) + take(pos_emb, positions) + type_row),
  // whose gathered rows then never leave the row kernel. fuse_reductions takes no gathering
  // producer (the reduce kernels do not gather), so without this the rows are written and read
  // back. Only gathers: a loop step that computes a matmul's consumer stays its epilogue.
  std::optional<Rows> prologue_rows(std::size_t first) const {
    const Step& loop = plan_.steps[first];
    if (!computes_gather(loop)) return std::nullopt;
    std::unordered_set<const Node*> outputs;
    note_writes(loop, outputs);
    for (std::size_t s = first + 1; s < plan_.steps.size(); ++s) {
      if (!reads(plan_.steps[s], outputs)) continue;
      const auto rows = rows_of(plan_.steps[s]);
      if (!rows || rows->first_axis == 0 || rows->domain != loop.nodes.front()->shape()) return std::nullopt;
      return rows;
    }
    return std::nullopt;
  }

  // A step that joined a run on trial (joins) stays only when a later member reads it, or, a sum
  // over the rows, when another member reads a value it reads (dy, for layernorm's dbeta); else it
  // runs before the row step, as any step that reads nothing of the run.
  void drop_unread_trials(Run& run) {
    for (std::size_t m = run.members.size(); m-- > 1;) {
      const Step& step = plan_.steps[run.members[m]];
      if (!on_trial_.count(&step)) continue;
      if (summed_over_rows(step) && shares_a_read(step, run)) continue;
      std::unordered_set<const Node*> outputs;
      note_writes(step, outputs);
      bool read_later = false;
      for (std::size_t later = m + 1; later < run.members.size() && !read_later; ++later)
        read_later = reads(plan_.steps[run.members[later]], outputs);
      if (read_later) continue;
      run.moved.push_back(run.members[m]);
      run.members.erase(run.members.begin() + static_cast<std::ptrdiff_t>(m));
    }
    std::sort(run.moved.begin(), run.moved.end());
  }

  // Whether another member of `run` reads a value (a view base) that `step` reads.
  bool shares_a_read(const Step& step, const Run& run) const {
    std::unordered_set<const Node*> read;
    for (const auto& node : step.nodes)
      for_each_read(*node, [&](const NodePtr& in) { read.insert(view_base(in.get())); });
    for (std::size_t member : run.members)
      if (&plan_.steps[member] != &step && reads(plan_.steps[member], read)) return true;
    return false;
  }

  static bool reads(const Step& step, const std::unordered_set<const Node*>& values) {
    if (values.empty()) return false;
    bool any = false;
    for (const auto& node : step.nodes)
      for_each_read(*node, [&](const NodePtr& in) { any = any || values.count(view_base(in.get())) != 0; });
    return any;
  }

  static void note_writes(const Step& step, std::unordered_set<const Node*>& values) {
    for (const auto& out : step.outputs) values.insert(out.get());
  }

  bool joins(const Step& step) {
    if (step.kind == Step::Kind::reduce) {
      auto rows = rows_of(step);
      if (!rows) rows = summed_over_rows(step);
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
    // A step over the rows that reads nothing of the run joins on trial: it stays when a later
    // member reads it (drop_unread_trials), so that a backward pass's one-hot, or a forward
    // reduction a later part needs, is computed in the row kernel instead of materialised.
    if (!connected) on_trial_.insert(&step);
    return true;
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

  const Plan plan_;  // with_source_loops_late of the pass's input
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_set<const Node*> graph_outputs_;
  Rows rows_;
  std::unordered_set<const Node*> written_;          // by the run's members
  std::unordered_set<const Node*> deferred_writes_;  // by steps that must run after the row step
  std::unordered_set<const Step*> on_trial_;         // members that read nothing of the run
};

}  // namespace

Plan fuse_rows(const Plan& plan) { return RowFuser(plan).run(); }

}  // namespace tensorjit::ir
