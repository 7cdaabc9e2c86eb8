// fuse: partitions a graph into the steps that run it (docs/contracts.md, contract 6, rules 1 and 5).
//
// Pre:  the output of fold_views (no view between two elementwise ops).
// Post: a Plan whose steps, run in order, compute every output:
//   - a `loop` step is a connected group of elementwise ops of one shape, computed in one pass
//     over its domain; it reads inputs, constants and materialised values (through their views)
//     and writes only the values someone outside the group needs;
//   - a `single` step is one node that is materialised by itself: a reduction, a matmul, an iota
//     (fuse_reductions.hpp then turns reductions into `reduce` steps with their elementwise
//     producers and consumers; fuse_epilogues.hpp gives a matmul its consumers).
// A value is materialised only at a graph output, at a single step's operand, or where another
// group reads it; each such decision is recorded with its reason. Groups are cut where a path
// between two elementwise ops leaves the group through a single step (that would be a cycle), and
// a group holds at most kMaxGroupNodes ops so that no graph makes one compile take long.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

inline constexpr std::size_t kMaxGroupNodes = 192;

struct Step {
  enum class Kind { loop, single, reduce, product, row };
  Kind kind = Kind::loop;
  // loop: the group's ops, inputs first; single: the one node; reduce: the producer ops, the one
  // reduction, then the consumer ops (each part in topological order); product
  // (fuse_epilogues.hpp): the matmul, then its epilogue's ops.
  std::vector<NodePtr> nodes;
  std::vector<NodePtr> outputs;  // the values this step writes
  std::vector<std::string> reasons;  // one per output: why it is materialised
  // row (fuse_rows.hpp): the reduce and loop steps it runs on each chunk of rows, in order; its
  // nodes are theirs, its outputs the values written to whole buffers.
  std::vector<Step> parts = {};  // "= {}": aggregates that leave it out then raise no warning
};

struct Plan {
  Graph graph;              // the graph the steps compute (after fold_views)
  std::vector<Step> steps;  // in an order that respects every dependency
};

Plan fuse(const Graph& folded);

std::string_view step_kind_name(Step::Kind kind);

// The plan as text: which node went into which step, and why each value is materialised.
std::string print_plan(const Plan& plan);

}  // namespace tensorjit::ir
