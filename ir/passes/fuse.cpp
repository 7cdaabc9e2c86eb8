#include "ir/passes/fuse.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/f32_form.hpp>

namespace tensorjit::ir {
namespace {

// Ops a loop step computes. copy is one: the identity, written out where it is materialised. A
// gather is one too: its indices are values of the loop, and it reads its operand 0 from memory
// at the element they name (a leaf access of the kernel, docs/indexing.md).
bool is_loop_op(const Node& node) { return is_elementwise(node.op()) || node.op() == Op::gather; }

// Whether `user` reads its operand `operand` as a value of its own loop (not from memory).
bool reads_in_loop(const Node& user, std::size_t operand) { return !(user.op() == Op::gather && operand == 0); }

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

class Planner {
 public:
  explicit Planner(const Graph& graph) : order_(topological_order(graph)) {
    for (std::size_t i = 0; i < order_.size(); ++i) position_[order_[i].get()] = i;
    for (const auto& out : graph.outputs) graph_outputs_.insert(out.get());
    for (const auto& node : order_)
      for (const auto& in : node->inputs()) users_[in.get()].push_back(node.get());
    // An iota is a leaf that the loop, reduce, scan and row kernels reading it compute from each
    // element's offset (IotaAttr), like an input they read (a concat's copy kernel too); it is
    // written out only as a graph output or as the operand of a step that reads memory (a matmul's
    // GEMM, the interpreter's orderings).
    for (const auto& node : order_) {
      if (node->op() != Op::iota) continue;
      const auto& users = users_[node.get()];
      const bool read_from_memory = std::any_of(users.begin(), users.end(), [&](const Node* user) {
        if (user->op() == Op::gather) return user->input(0).get() == node.get();
        return !is_elementwise(user->op()) && !is_reduce(user->op()) && !is_scan(user->op()) &&
               user->op() != Op::concat;
      });
      if (graph_outputs_.count(node.get()) || read_from_memory) written_iotas_.insert(node.get());
    }
    // A widening cast of f16/bf16 read only by matmuls is left to them: their GEMM converts its
    // operand in the packing (fuse.hpp). Not over an iota, which a GEMM cannot read unwritten.
    for (const auto& node : order_) {
      if (!widens_storage_float(*node) || graph_outputs_.count(node.get()) || node->input(0)->op() == Op::iota)
        continue;
      const auto& users = users_[node.get()];
      const bool only_products = !users.empty() && std::all_of(users.begin(), users.end(), [](const Node* user) {
        return user->op() == Op::matmul;
      });
      if (only_products) converted_by_products_.insert(node.get());
    }
  }

  std::vector<Step> plan() {
    compute_depths();
    std::vector<Step> steps = group_loops();
    for (const auto& node : order_)
      if (is_single_op(*node) && !is_order(node->op()) && node->op() != Op::scatter_add && node->op() != Op::concat)
        steps.push_back(single_step(node));
    add_sort_steps(steps);
    add_concat_steps(steps);
    for (const auto& node : order_)
      if (node->op() == Op::scatter_add)
        steps.push_back(Step{Step::Kind::scatter, {node}, {node}, {"scatter_add runs as a scatter step"}});
    // A graph output that is a constant is filled by a step of its own.
    for (const auto& node : order_)
      if (node->op() == Op::constant && graph_outputs_.count(node.get()))
        steps.push_back(Step{Step::Kind::fill, {node}, {node}, {"graph output (a constant, filled)"}});
    std::stable_sort(steps.begin(), steps.end(), [&](const Step& a, const Step& b) {
      return sort_key(a) < sort_key(b);
    });
    return steps;
  }

 private:
  // Ops materialised by a step of their own: single steps, and the sort steps of orderings.
  bool is_single_op(const Node& node) const {
    return is_reduce(node.op()) || is_scan(node.op()) || is_order(node.op()) || node.op() == Op::matmul ||
           node.op() == Op::scatter_add || node.op() == Op::concat || written_iotas_.count(&node) != 0;
  }

  // How many materialisations the longest path from a source to `node` passes through: a single
  // step, a view of a loop's value (a copy read through a view must be written first), or a loop's
  // value that a gather reads from memory. A loop group never joins ops of different depth, which
  // keeps the steps acyclic.
  void compute_depths() {
    for (const auto& node : order_) {
      int depth = 0;
      for (const auto& in : node->inputs()) depth = std::max(depth, depth_[in.get()]);
      const bool reads_loop_memory =
          (is_movement(node->op()) || node->op() == Op::gather) && is_loop_op(*node->input(0));
      if (is_single_op(*node) || reads_loop_memory) ++depth;
      depth_[node.get()] = depth;
    }
    raise_free_loop_ops();
  }

  // A loop op of depth 0 (no materialisation before it: it reads only inputs, constants, iotas
  // and other such ops) may run in any later loop without making the steps cyclic, so it moves up
  // to the lowest depth its readers allow: the depth of a loop that reads it as its own value,
  // one below any other reader. It then joins the loop that reads it instead of being a loop step
  // of its own whose value that loop reads back (Adam's `v * beta2` beside `(g * g) * (1 - beta2)`
  // of a gradient g a product computes). Readers first (reverse topological order), so a chain of
  // such ops moves up together. Every edge between steps still goes to a higher depth.
  void raise_free_loop_ops() {
    for (auto node = order_.rbegin(); node != order_.rend(); ++node) {
      const Node* free_op = node->get();
      if (depth_[free_op] != 0 || !in_loop(*free_op)) continue;
      int allowed = std::numeric_limits<int>::max();
      for (const Node* user : users_[free_op])
        for (std::size_t k = 0; k < user->inputs().size(); ++k) {
          if (user->input(static_cast<int>(k)).get() != free_op) continue;
          const bool same_loop = in_loop(*user) && reads_in_loop(*user, k) && user->shape() == free_op->shape();
          allowed = std::min(allowed, same_loop ? depth_[user] : depth_[user] - 1);
        }
      if (allowed != std::numeric_limits<int>::max() && allowed > 0) depth_[free_op] = allowed;
    }
  }

  // A loop step computes `node`: an elementwise op or a gather, unless it is a cast the matmuls
  // reading it convert themselves.
  bool in_loop(const Node& node) const { return is_loop_op(node) && !converted_by_products_.count(&node); }

  std::vector<Step> group_loops() {
    UnionFind groups(order_.size());
    for (const auto& node : order_) {
      if (!in_loop(*node)) continue;
      for (std::size_t k = 0; k < node->inputs().size(); ++k) {
        const NodePtr& in = node->input(static_cast<int>(k));
        if (reads_in_loop(*node, k) && in_loop(*in) && depth_[in.get()] == depth_[node.get()] &&
            in->shape() == node->shape())
          groups.join(position_[in.get()], position_[node.get()]);
      }
    }
    std::unordered_map<std::size_t, std::vector<NodePtr>> members;
    std::vector<std::size_t> roots;
    for (const auto& node : order_) {
      if (!in_loop(*node)) continue;
      std::size_t root = groups.find(position_[node.get()]);
      if (!members.count(root)) roots.push_back(root);
      members[root].push_back(node);
    }
    std::vector<Step> steps;
    for (std::size_t root : roots) {
      const auto& nodes = members[root];
      // Cut an oversized group into consecutive pieces of the topological order.
      for (std::size_t first = 0; first < nodes.size(); first += kMaxGroupNodes) {
        Step step;
        step.kind = Step::Kind::loop;
        step.nodes.assign(nodes.begin() + first,
                          nodes.begin() + std::min(nodes.size(), first + kMaxGroupNodes));
        add_loop_outputs(step, nodes.size() > kMaxGroupNodes);
        steps.push_back(std::move(step));
      }
    }
    return steps;
  }

  void add_loop_outputs(Step& step, bool was_cut) {
    std::unordered_set<const Node*> inside;
    for (const auto& n : step.nodes) inside.insert(n.get());
    for (const auto& n : step.nodes) {
      std::string reason;
      if (graph_outputs_.count(n.get())) reason = "graph output";
      for (const Node* user : users_[n.get()]) {
        if (!reason.empty()) break;
        if (inside.count(user)) continue;
        if (is_movement(user->op())) reason = fmt::format("read through a view by %{}", position_[user]);
        else if (user->op() == Op::gather && user->input(0) == n) reason = fmt::format("gathered from by %{}", position_[user]);
        else if (converted_by_products_.count(user))
          reason = fmt::format("operand of matmul, converted to f32 by its GEMM's packing (cast %{})", position_[user]);
        else if (is_single_op(*user)) reason = fmt::format("operand of {} %{}", op_name(user->op()), position_[user]);
        else if (was_cut) reason = fmt::format("group cut at {} ops, read by %{}", kMaxGroupNodes, position_[user]);
        else reason = fmt::format("read by another kernel at %{}", position_[user]);
      }
      if (reason.empty()) continue;
      step.outputs.push_back(n);
      step.reasons.push_back(std::move(reason));
    }
  }

  Step single_step(const NodePtr& node) {
    return Step{Step::Kind::single, {node}, {node},
                {fmt::format("{} runs as a step of its own", op_name(node->op()))}};
  }

  // A sort and an argsort of one operand with equal attributes (a topk's values and indices) are
  // one sort step: one sort of each row gives both.
  void add_sort_steps(std::vector<Step>& steps) {
    const std::size_t first = steps.size();
    for (const auto& node : order_) {
      if (!is_order(node->op())) continue;
      auto partner = std::find_if(steps.begin() + static_cast<std::ptrdiff_t>(first), steps.end(), [&](const Step& step) {
        const NodePtr& other = step.nodes.front();
        return step.nodes.size() == 1 && other->op() != node->op() && other->input(0) == node->input(0) &&
               attrs_equal(other->attrs(), node->attrs());
      });
      const std::string reason = fmt::format("{} runs as a sort step", op_name(node->op()));
      if (partner == steps.end()) {
        steps.push_back(Step{Step::Kind::sort, {node}, {node}, {reason}});
      } else {
        partner->nodes.push_back(node);
        partner->outputs.push_back(node);
        partner->reasons.push_back(reason);
      }
    }
  }

  // A concat written in place (docs/architecture.md, "Joining"): one concat step per concat that
  // is not itself an operand written in place into another (`nested`), holding as its parts the
  // loop steps whose every output is an operand of it or of the concats nested in it and is read
  // by nothing else. Those parts write their outputs into the concat's buffer, each at its place;
  // the runtime copies every other operand there. The step's nodes are its parts' nodes, then the
  // concats inner first, the root last.
  void add_concat_steps(std::vector<Step>& steps) {
    std::unordered_map<const Node*, std::size_t> written_by;
    for (std::size_t s = 0; s < steps.size(); ++s)
      if (steps[s].kind == Step::Kind::loop)
        for (const auto& out : steps[s].outputs) written_by[out.get()] = s;
    std::vector<bool> absorbed(steps.size(), false);
    std::vector<Step> joined;
    for (const auto& node : order_) {
      if (node->op() != Op::concat || nested(*node)) continue;
      std::vector<NodePtr> concats;
      std::unordered_set<const Node*> tree, leaves;
      collect_concat_tree(node, concats, tree, leaves);
      Step step;
      step.kind = Step::Kind::concat;
      for (const NodePtr& concat : concats)
        for (const auto& part : concat->inputs()) {
          auto found = written_by.find(part.get());
          if (found == written_by.end() || absorbed[found->second] ||
              !writes_only_into(steps[found->second], tree, leaves))
            continue;
          absorbed[found->second] = true;
          Step loop = steps[found->second];
          for (auto& reason : loop.reasons) reason = fmt::format("written in place into concat %{}", position_[node.get()]);
          step.nodes.insert(step.nodes.end(), loop.nodes.begin(), loop.nodes.end());
          step.parts.push_back(std::move(loop));
        }
      step.nodes.insert(step.nodes.end(), concats.begin(), concats.end());
      step.outputs = {node};
      step.reasons = {graph_outputs_.count(node.get()) ? "graph output (a concat)" : "concat, read by another step"};
      joined.push_back(std::move(step));
    }
    std::vector<Step> kept;
    for (std::size_t s = 0; s < steps.size(); ++s)
      if (!absorbed[s]) kept.push_back(std::move(steps[s]));
    kept.insert(kept.end(), std::make_move_iterator(joined.begin()), std::make_move_iterator(joined.end()));
    steps = std::move(kept);
  }

  // A concat whose one reader is another concat (it is written in place into that one's buffer).
  bool nested(const Node& node) const {
    if (node.op() != Op::concat || graph_outputs_.count(&node)) return false;
    auto users = users_.find(&node);
    return users != users_.end() && users->second.size() == 1 && users->second.front()->op() == Op::concat;
  }

  // The concats nested in `root` (inner first, root last) and the operands that are not.
  void collect_concat_tree(const NodePtr& root, std::vector<NodePtr>& concats, std::unordered_set<const Node*>& tree,
                           std::unordered_set<const Node*>& leaves) {
    for (const auto& part : root->inputs()) {
      if (nested(*part)) collect_concat_tree(part, concats, tree, leaves);
      else leaves.insert(part.get());
    }
    concats.push_back(root);
    tree.insert(root.get());
  }

  // Whether every value `loop` writes is an operand of the concat tree that nothing else reads.
  bool writes_only_into(const Step& loop, const std::unordered_set<const Node*>& tree,
                        const std::unordered_set<const Node*>& leaves) const {
    for (const auto& out : loop.outputs) {
      if (!leaves.count(out.get()) || graph_outputs_.count(out.get())) return false;
      for (const Node* user : users_.at(out.get()))
        if (!tree.count(user)) return false;
    }
    return !loop.outputs.empty();
  }

  // Steps of lower depth first; at one depth the single and fill steps (which read only lower
  // depths) before the loops (which may read them); then the topological order of the step's first
  // node (of its concat, for a concat step, whose parts come before it).
  std::tuple<int, int, std::size_t> sort_key(const Step& step) {
    const Node* first = (step.kind == Step::Kind::concat ? step.outputs : step.nodes).front().get();
    return {depth_[first], step.kind == Step::Kind::loop ? 1 : 0, position_[first]};
  }

  std::vector<NodePtr> order_;
  std::unordered_map<const Node*, std::size_t> position_;
  std::unordered_set<const Node*> graph_outputs_;
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_map<const Node*, int> depth_;
  std::unordered_set<const Node*> written_iotas_;
  std::unordered_set<const Node*> converted_by_products_;
};

}  // namespace

Plan fuse(const Graph& folded) {
  Plan plan;
  plan.graph = folded;
  plan.steps = Planner(folded).plan();
  return plan;
}

}  // namespace tensorjit::ir
