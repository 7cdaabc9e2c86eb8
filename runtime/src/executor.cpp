#include "runtime/src/executor.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory_resource>
#include <optional>
#include <fmt/format.h>
#include <fstream>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/node_map.hpp>
#include <tensorjit/ir/text.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "runtime/src/config.hpp"
#include "runtime/src/executable_cache.hpp"
#include "runtime/src/jit_instance.hpp"
#include "runtime/src/plan_runner.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::detail {
namespace {

bool is_materialized(const ir::NodePtr& node) {
  return node->op() == ir::Op::input && node->attr<ir::InputAttr>().buffer;
}

// TENSORJIT_DUMP: one folder per eval, numbered in the order evals start in this process. A folder
// that cannot be written is reported once on stderr and dumping goes on without it.
std::filesystem::path start_dump(const ir::Graph& graph, const ir::Plan& plan) {
  const auto& root = config().dump_dir;
  if (root.empty()) return {};
  static std::atomic<int> evals{0};
  static std::atomic<bool> warned{false};
  std::filesystem::path folder = root / fmt::format("eval-{:04}", evals.fetch_add(1));
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  std::ofstream graph_file(folder / "graph.tjir");
  std::ofstream plan_file(folder / "plan.txt");
  graph_file << ir::print(graph);
  plan_file << jit().target().summary() << "\n\n" << ir::print(plan.graph) << "\n" << ir::print_plan(plan);
  if (error || !graph_file || !plan_file) {
    if (!warned.exchange(true))
      codegen::logger().warn("TENSORJIT_DUMP: cannot write to {}: {}; dumps are skipped", folder.string(),
                             error ? error.message() : "write failed");
    return {};
  }
  return folder;
}

// The graph an eval runs and its nodes in topological order. A graph with no node realized by an
// earlier eval (an expression over inputs, the usual case) is used as it is, walked once: the
// rewrite and a second walk of the rewritten graph were a fifth of the cost of evaluating a*b + c
// on 8 elements.
//
// What an eval keeps (docs/contracts.md, "A value is computed once"), besides its outputs:
// - every node that lazy work outside this eval reads, directly or through views: work still
//   pending (gradients built before the loss is evaluated) will need it (Node::pending_reads);
// - every node held by a Tensor handle whose value this eval computes from a separate step it
//   runs (a matmul, a reduction not over the last axis alone: is_separate_step): the handle can
//   start another eval, and computing the value again would repeat that step. A training loop
//   that reads only its loss keeps its parameters and optimizer state this way, each step, as
//   it computes them (W17: the gradients' matmuls and bias sums run once a step);
// - every node that an earlier eval computed without keeping it (inside a fused kernel) and that
//   a node new to this eval reads, directly or through views: computed a second time and kept.
// Named temporaries of elementwise and row blocks (auto h = a * b; y = h + c; a softmax written
// out) still fuse: a handle alone keeps a value only when a separate step computes it.
struct EvalGraph {
  ir::Graph graph;                 // the outputs asked for, then the kept nodes
  std::vector<ir::NodePtr> order;  // graph's nodes, in topological order
  std::vector<ir::NodePtr> kept;   // user nodes, in the order of their outputs in `graph`
  // The user nodes the walk reached (those an earlier eval kept included), when the graph that
  // runs is a rewrite of them; empty when it is `order` itself.
  std::vector<ir::NodePtr> reached;
};

bool is_realized(const ir::Node& node) { return node.is_realized(); }

bool is_keepable(const ir::Node& node) {
  const ir::Op op = node.op();
  // Sources are never kept: an iota costs the kernels that read it less than reading it back would.
  return !is_realized(node) && !ir::is_source(op) && !ir::is_movement(op);
}

// A node an earlier eval computed, not kept, that the eval needs again: kept this time.
bool needs_keeping(const ir::Node& node) { return node.computed() && is_keepable(node); }

bool is_kept_or_output(const ir::NodePtr& node, const std::vector<ir::NodePtr>& outputs,
                       const std::vector<ir::NodePtr>& kept) {
  return std::find(kept.begin(), kept.end(), node) != kept.end() ||
         std::find(outputs.begin(), outputs.end(), node) != outputs.end();
}

// Adds to `kept` the nodes of `order` that lazy work outside it reads (the base of a view so
// read). The reads inside are counted only when the pending reads of `order` exceed its edges,
// which an eval of an expression nothing else reads (the usual case) checks in one pass.
void keep_values_read_outside(const std::vector<ir::NodePtr>& order, const std::vector<ir::NodePtr>& outputs,
                              std::vector<ir::NodePtr>& kept) {
  std::int64_t reads = 0, edges = 0;
  for (const auto& node : order) {
    reads += node->pending_reads();
    if (!is_realized(*node)) edges += static_cast<std::int64_t>(node->inputs().size());
  }
  if (reads == edges) return;
  ir::NodeMap<std::int64_t> reads_inside(order.size());
  for (const auto& node : order)
    if (!is_realized(*node))
      for (const auto& input : node->inputs()) ++reads_inside[input.get()];
  for (const auto& node : order) {
    const auto inside = reads_inside.find(node.get());
    if (node->pending_reads() <= (inside ? *inside : 0)) continue;
    const ir::NodePtr* base = &node;
    while (ir::is_movement((*base)->op())) base = &(*base)->input(0);
    if (is_keepable(**base) && !is_kept_or_output(*base, outputs, kept)) kept.push_back(*base);
  }
}

// A step of its own whose work an eval that needs its value again would repeat: a matmul, or a
// reduction over other axes than the last alone (a bias gradient's column sum, a full sum). A
// reduction over the last axis only is left out: it fuses into the row kernel of its readers
// (softmax, layernorm), so a value computed from it is as cheap to compute again as an
// elementwise one, and keeping it would split that kernel.
bool is_separate_step(const ir::Node& node) {
  if (node.op() == ir::Op::matmul) return true;
  if (!ir::is_reduce(node.op())) return false;
  const auto& axes = node.attr<ir::ReduceAttr>().axes;
  return !(axes.size() == 1 && axes.front() == node.input(0)->rank() - 1);
}

// Adds to `kept` the nodes of `order` that a Tensor handle holds and whose value depends on a
// separate step this eval runs. Usually no node but the outputs is held, or no such step runs:
// one pass.
void keep_held_step_values(const std::vector<ir::NodePtr>& order, const std::vector<ir::NodePtr>& outputs,
                           std::vector<ir::NodePtr>& kept) {
  bool held = false, step = false;
  for (const auto& node : order) {
    if (is_realized(*node)) continue;
    step = step || is_separate_step(*node);
    held = held || (node->holders() > 0 && is_keepable(*node) &&
                    std::find(outputs.begin(), outputs.end(), node) == outputs.end());
  }
  if (!held || !step) return;
  ir::NodeMap<bool> after_step(order.size());  // topological order: operands come first
  for (const auto& node : order) {
    if (is_realized(*node)) continue;
    bool reads_step = is_separate_step(*node);
    for (const auto& input : node->inputs()) {
      const bool* flag = after_step.find(input.get());
      reads_step = reads_step || (flag && *flag);
    }
    after_step.insert(node.get(), reads_step);
    if (reads_step && node->holders() > 0 && is_keepable(*node) && !is_kept_or_output(node, outputs, kept))
      kept.push_back(node);
  }
}

// An input node stands for its buffer's contents at the version it was made at: once assign has
// overwritten them in place, a graph that still reads the node (one tj::grad built over the
// structure of values computed before the assign) would read the new values, and throws instead.
void check_version(const ir::Node& node) {
  const auto& in = node.attr<ir::InputAttr>();
  TJ_CHECK(!in.buffer || in.version == in.buffer->version())
      << "eval: this graph reads a tensor " << dtype_name(in.dtype) << ir::shape_str(in.layout.shape)
      << " whose values assign has overwritten in place since the graph was built (a gradient built"
      << " over values computed before an optimizer step, say); build the graph again from the"
      << " tensor's handle, or keep a copy of the handle before the assign (the assign then writes"
      << " a new buffer)";
}

// The walk stops at realized nodes: what an earlier eval kept is read, whatever computed it.
// Another thread may realize a node or drop a realized one's value meanwhile (an eval of a shared
// lazy tensor, Node::drop_value_if_unreachable), so the walk takes each value it stops at once and
// the rewrite reads those, never the node again: a node the walk stopped at must be replaced, as
// its operands are not in the order.
EvalGraph eval_graph(const std::vector<ir::NodePtr>& outputs, bool keep) {
  EvalGraph eval{ir::Graph{outputs}, {}, {}, {}};
  ir::NodeMap<std::shared_ptr<const ir::Value>> values;
  const auto take_value = [&values](const ir::Node& node) {
    if (values.contains(&node)) return true;
    if (!node.is_realized()) return false;  // the flag alone: no shared_ptr copy per node walked
    auto value = node.realized();
    if (!value) return false;
    values.insert(&node, std::move(value));
    return true;
  };
  eval.order = ir::topological_order(eval.graph, take_value);
  for (const auto& node : eval.order) {
    if (keep && node->op() == ir::Op::input) check_version(*node);
    if (values.contains(node.get()) || !keep || node->computed()) continue;
    for (const auto& input : node->inputs()) {
      const ir::NodePtr* in = &input;
      while (ir::is_movement((*in)->op())) in = &(*in)->input(0);
      if (needs_keeping(**in) && !is_kept_or_output(*in, outputs, eval.kept)) eval.kept.push_back(*in);
    }
  }
  if (keep) {
    keep_values_read_outside(eval.order, outputs, eval.kept);
    keep_held_step_values(eval.order, outputs, eval.kept);
  }
  if (values.size() == 0 && eval.kept.empty()) return eval;
  eval.graph.outputs.insert(eval.graph.outputs.end(), eval.kept.begin(), eval.kept.end());
  eval.reached = std::move(eval.order);
  if (!eval.kept.empty()) eval.reached = ir::topological_order(eval.graph, take_value);
  eval.graph = ir::replace_nodes(eval.graph, eval.reached, [&values](const ir::NodePtr& node) -> ir::NodePtr {
    const auto* value = values.find(node.get());
    return value ? ir::make_input((*value)->buffer, (*value)->dtype, (*value)->layout) : nullptr;
  });
  eval.order = ir::topological_order(eval.graph);  // the realized nodes' operands drop out
  return eval;
}

// ---- Donations (Tensor::assign, tj::optim) ----
//
// An output may be written into a buffer the caller gives (a Donation) instead of a new one:
// - a spare: a buffer only the donation holds. Nothing can read it, so the step that computes
//   the output writes there, whatever it reads.
// - in place: the buffer of the target handle's input node I. Safe when nothing that could read
//   the old contents after this eval exists (overwritten_safely), and the plan reads the buffer
//   nowhere after the step that writes it, and in that step only element for element at the
//   output's own position (may_overwrite).
// A donation that a rule refuses is simply not used: the output gets a new buffer, as without it.
struct Placement {
  std::size_t output;
  const ir::Node* input;  // in place: the node over the buffer, which the graph may read; else null
  std::shared_ptr<ir::Buffer> buffer;
  Donated kind;
  bool offered = false;  // handed to the plan's run (the plan's rules allowed it)
};

// Per node, the reads of it that end with this eval: those of the eval's unrealized nodes that it
// realizes (its outputs and kept nodes) or that stay unrealized with nothing live reaching them (no
// handle, no lazy work outside the eval, no live reader). The same for every donation's target, so
// an eval computes it once, at its first target that lazy nodes read.
ir::NodeMap<std::int64_t> reads_ending(const EvalGraph& eval, const std::vector<ir::NodePtr>& outputs) {
  const std::vector<ir::NodePtr>& user = eval.reached.empty() ? eval.order : eval.reached;
  ir::NodeMap<bool> realized_after(outputs.size() + eval.kept.size());
  for (const auto& n : outputs) realized_after.insert(n.get(), true);
  for (const auto& n : eval.kept) realized_after.insert(n.get(), true);
  ir::NodeMap<std::int64_t> reads_inside(user.size());
  for (const auto& n : user)
    if (!is_realized(*n))
      for (const auto& input : n->inputs()) ++reads_inside[input.get()];
  // Reverse topological order: a node's readers are decided before it.
  ir::NodeMap<bool> live(user.size());
  for (auto it = user.rbegin(); it != user.rend(); ++it) {
    const ir::Node* n = it->get();
    if (is_realized(*n) || realized_after.contains(n)) continue;
    const bool* read_by_live = live.find(n);
    const auto* inside = reads_inside.find(n);
    const bool is_live = (read_by_live && *read_by_live) || n->holders() > 0 ||
                         n->pending_reads() > (inside ? *inside : 0);
    live[n] = is_live;
    if (is_live)
      for (const auto& input : n->inputs()) live[input.get()] = true;
  }
  ir::NodeMap<std::int64_t> ending(user.size());
  for (const auto& n : user) {
    if (is_realized(*n)) continue;
    const bool* is_live = live.find(n.get());
    if (!realized_after.contains(n.get()) && is_live && *is_live) continue;
    for (const auto& input : n->inputs()) ++ending[input.get()];
  }
  return ending;
}

// The target's node when its buffer can take `output` in place as far as the handles and lazy
// nodes of the process go: I is an input over a buffer of ours, contiguous from its start, of
// the output's dtype and shape; the buffer is held by I alone (no other view, no realized value
// over it); and once this eval has realized its outputs and kept nodes, no lazy node can still
// read I: every read of I pending is one that ends with the eval (reads_ending, made in `ending`
// when first needed).
const ir::Node* overwritten_safely(const EvalGraph& eval, const std::vector<ir::NodePtr>& outputs,
                                   const ir::NodePtr& node, const ir::Node& output,
                                   std::optional<ir::NodeMap<std::int64_t>>& ending) {
  if (node->op() != ir::Op::input) return nullptr;
  const auto& in = node->attr<ir::InputAttr>();
  if (!in.buffer || !in.buffer->owned() || in.buffer.use_count() != 1 || in.dtype != output.dtype() ||
      in.layout != ir::Layout::contiguous(output.shape()) ||
      in.buffer->bytes() < static_cast<std::size_t>(output.numel()) * itemsize(in.dtype))
    return nullptr;
  if (node->pending_reads() == 0) return node.get();
  if (!ending) ending.emplace(reads_ending(eval, outputs));
  const std::int64_t* ended = ending->find(node.get());
  return node->pending_reads() == (ended ? *ended : 0) ? node.get() : nullptr;
}

bool reads_slot(const ir::Node* node, const ir::Buffer* slot) {
  const ir::Node* base = ir::view_base(node);
  return slot && base->op() == ir::Op::input && base->attr<ir::InputAttr>().buffer.get() == slot;
}

// Whether the plan may write output `index` over the buffer bound to `slot`, which it reads: the
// output is written by a loop or product step (as a contiguous buffer of its own); every other
// step that reads the slot runs before that step; the step reads the slot only as an input of the
// output's own contiguous layout (element i where it writes element i: its kernels load every
// operand of a chunk before they store it), never through a view or as a matmul operand; and no
// other output of the plan is the slot or a view of it.
enum class Overwrite : std::uint8_t { refused, read_before, read_element_for_element };
Overwrite may_overwrite(const ir::Plan& plan, std::size_t index, const ir::Buffer* slot) {
  constexpr Overwrite refused = Overwrite::refused;
  bool read_by_writer = false;
  const ir::NodePtr& out = plan.graph.outputs[index];
  std::size_t writer = plan.steps.size();
  for (std::size_t s = 0; s < plan.steps.size() && writer == plan.steps.size(); ++s)
    if (std::find(plan.steps[s].outputs.begin(), plan.steps[s].outputs.end(), out) != plan.steps[s].outputs.end())
      writer = s;
  if (writer == plan.steps.size()) return refused;
  const ir::Step& step = plan.steps[writer];
  // A kernel that checks indices throws after its whole launch: one at or after the writer would
  // leave the buffer half written. So that an error leaves every tensor valid (contract 5), the
  // gathers and scatters must all run before.
  for (std::size_t s = writer; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes)
      if (node->op() == ir::Op::gather || node->op() == ir::Op::scatter_add) return refused;
  if (step.kind != ir::Step::Kind::loop && step.kind != ir::Step::Kind::product) return refused;
  if (step.kind == ir::Step::Kind::product && out == step.nodes.front()) return refused;
  const ir::Layout layout = ir::Layout::contiguous(out->shape());
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes)
      for (const auto& input : node->inputs()) {
        if (!reads_slot(input.get(), slot)) continue;
        if (s > writer) return refused;
        if (s < writer) continue;
        if (input->op() != ir::Op::input || input->attr<ir::InputAttr>().layout != layout) return refused;
        if (step.kind == ir::Step::Kind::product && node == step.nodes.front()) return refused;
        read_by_writer = true;
      }
  for (std::size_t j = 0; j < plan.graph.outputs.size(); ++j)
    if (j != index && reads_slot(plan.graph.outputs[j].get(), slot)) return refused;
  return read_by_writer ? Overwrite::read_element_for_element : Overwrite::read_before;
}

std::vector<ir::Value> run_graph(const ir::Graph& graph, const std::vector<ir::NodePtr>& order,
                                 std::vector<Placement>& placements) {
  std::vector<const ir::Node*> leaves;
  std::shared_ptr<Executable> executable = executable_for(graph, order, leaves);
  ValueTable values;
  bind_leaves(*executable, leaves, values);
  for (auto& placement : placements) {
    bool unread = true;
    if (placement.input) {
      auto leaf = std::find(leaves.begin(), leaves.end(), placement.input);
      // A graph that does not read the buffer has no slot for it: a null slot, read nowhere.
      const ir::Buffer* slot =
          leaf != leaves.end() ? executable->slots[static_cast<std::size_t>(leaf - leaves.begin())].get() : nullptr;
      const Overwrite rule = may_overwrite(executable->plan, placement.output, slot);
      if (rule == Overwrite::refused) continue;
      unread = rule == Overwrite::read_before;
    }
    values.donate(executable->plan.graph.outputs[placement.output].get(), placement.buffer, unread);
    placement.offered = true;
  }
  std::filesystem::path dump_folder = start_dump(graph, executable->plan);
  if (codegen::logger().should_log(spdlog::level::debug))
    codegen::logger().debug("eval: {} steps\n{}", executable->plan.steps.size(), ir::print_plan(executable->plan));
  return run_plan(executable->plan, dump_folder, nullptr, values, &executable->cache);
}

}  // namespace

ir::Graph graph_for(const std::vector<ir::NodePtr>& outputs) { return eval_graph(outputs, false).graph; }

std::vector<ir::Value> run_graph(const ir::Graph& graph) {
  std::vector<Placement> none;
  return run_graph(graph, ir::topological_order(graph), none);
}

void evaluate(std::span<const Tensor> tensors) { evaluate(tensors, {}); }

std::vector<Donated> evaluate(std::span<const Tensor> tensors, const std::vector<Donation>& donations) {
  std::vector<Donated> donated(donations.size(), Donated::none);
  // The handles to point at their values (the caller holds them), in a stack arena: an eval of
  // one tensor allocates nothing for them.
  std::array<std::byte, 256> arena_bytes;
  std::pmr::monotonic_buffer_resource arena(arena_bytes.data(), arena_bytes.size());
  std::pmr::vector<TensorImpl*> pending(&arena);
  std::vector<ir::NodePtr> nodes;
  // The position in `nodes` of each tensor evaluated (tensors.size() when it is not), kept only
  // when there are donations: an eval without them allocates nothing more for them.
  std::vector<std::size_t> position;
  if (!donations.empty()) position.assign(tensors.size(), tensors.size());
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    ir::NodePtr node = node_of(tensors[t], "eval");
    if (is_materialized(node)) continue;
    if (!donations.empty()) position[t] = nodes.size();
    pending.push_back(tensors[t].impl().get());
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) return donated;

  const EvalGraph eval = eval_graph(nodes, true);
  std::vector<Placement> placements;
  std::vector<ir::NodePtr> targets(donations.size());  // the target nodes overwritten, if they are
  std::optional<ir::NodeMap<std::int64_t>> ending;       // overwritten_safely's reads_ending
  for (std::size_t d = 0; d < donations.size(); ++d) {
    const Donation& donation = donations[d];
    TJ_INTERNAL_CHECK(donation.output < tensors.size()) << "eval: a donation names no tensor";
    const std::size_t output = position[donation.output];
    if (output == tensors.size() ||
        std::any_of(placements.begin(), placements.end(), [&](const Placement& p) { return p.output == output; }))
      continue;
    if (donation.target) {
      targets[d] = donation.target->node();
      if (const ir::Node* input = overwritten_safely(eval, nodes, targets[d], *nodes[output], ending)) {
        placements.push_back({output, input, targets[d]->attr<ir::InputAttr>().buffer, Donated::in_place});
        continue;
      }
    }
    if (donation.spare && donation.spare.use_count() == 1)
      placements.push_back({output, nullptr, donation.spare, Donated::spare});
  }
  std::vector<ir::Value> values = run_graph(eval.graph, eval.order, placements);
  // Which donations were used, in place first: an input node over an overwritten buffer made from
  // here on records its new version.
  std::vector<const Placement*> used(donations.size(), nullptr);
  for (std::size_t d = 0; d < donations.size(); ++d) {
    const std::size_t output = position[donations[d].output];
    for (const auto& placement : placements)
      if (placement.output == output && placement.offered && values[output].buffer == placement.buffer)
        used[d] = &placement;
    if (!used[d]) continue;
    donated[d] = used[d]->kind;
    if (used[d]->kind == Donated::in_place) used[d]->buffer->bump_version();
  }

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i]->set_realized(values[i]);
    pending[i]->replace(ir::make_input(values[i].buffer, values[i].dtype, values[i].layout));
  }
  for (std::size_t k = 0; k < eval.kept.size(); ++k) eval.kept[k]->set_realized(values[nodes.size() + k]);
  // Marked after the walk that looked for marks, so that a node does not count as computed before
  // by the eval that computes it first. Sources are never computed: an iota costs its readers'
  // kernels less than reading it back would.
  for (const auto& node : eval.reached.empty() ? eval.order : eval.reached)
    if (!node->is_realized() && !ir::is_source(node->op()))
      node->mark_computed();
  for (std::size_t d = 0; d < donations.size(); ++d)
    if (donated[d] == Donated::in_place) {
      const ir::Value& value = values[position[donations[d].output]];
      donations[d].target->replace(ir::make_input(value.buffer, value.dtype, value.layout));
    }
  return donated;
}

}  // namespace tensorjit::detail
