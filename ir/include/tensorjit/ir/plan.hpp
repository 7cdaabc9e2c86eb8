// A fused plan: the steps that compute a graph, in an order that respects every dependency.
// ir/passes/fuse.hpp makes one (ir::plan_graph runs the whole pipeline); the runtime runs it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <tensorjit/ir/f32_form.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

struct Step {
  // What kind of kernel computes the step. The runtime's table of step kinds
  // (runtime/src/step_kind.cpp) has a row for each, in this order.
  enum class Kind { loop, single, reduce, product, row, fill, scan, sort, scatter, concat };
  Kind kind = Kind::loop;
  // loop: the group's ops, inputs first; single: the one node; reduce: the producer ops, the one
  // reduction, then the consumer ops (each part in topological order); product
  // (fuse_epilogues.hpp): the matmul, then its epilogue's ops; fill: a constant that is a graph
  // output, written out contiguously; scan (fuse_scans.hpp): the producer ops, the one scan, then
  // the consumer ops; sort: a sort and/or an argsort of one operand with equal attributes;
  // scatter: one scatter_add, its base copied and its values added in one fixed order; concat
  // (fuse.hpp): the nodes of its parts, then the concats written in place into the result, the
  // result last.
  std::vector<NodePtr> nodes;
  std::vector<NodePtr> outputs;  // the values this step writes
  std::vector<std::string> reasons;  // one per output: why it is materialised
  // row (fuse_rows.hpp): the reduce and loop steps it runs on each chunk of rows, in order; its
  // nodes are theirs, its outputs the values written to whole buffers. concat: the loop steps
  // that write their outputs, operands of the concat, in place into its buffer.
  std::vector<Step> parts = {};  // "= {}": aggregates that leave it out then raise no warning
};

inline constexpr std::size_t kStepKindCount = static_cast<std::size_t>(Step::Kind::concat) + 1;

struct Plan {
  Graph graph;              // the graph the steps compute (after fold_views)
  std::vector<Step> steps;  // in an order that respects every dependency
};

std::string_view step_kind_name(Step::Kind kind);

// Whether the step computes a gather. The flat loop kernel and the row kernel read gathers
// (docs/indexing.md), so a loop step that computes one joins no reduce, scan or product step, and a
// row step only as its prologue (fuse_rows.hpp).
bool computes_gather(const Step& step);

// Whether `part`, a reduce part of a row step, reduces each column over the rows (its reduction's
// axes are the domain's row axes: a column sum, as the gradients of layernorm's gamma and beta,
// fuse_rows.hpp) rather than each row over its columns.
bool reduces_rows(const Step& part);

// The reduction of a row step's first part that reduces over the columns (its first part, or the
// one after its gathering prologue, fuse_rows.hpp), whose input shape is the step's domain and
// whose first axis is the first column axis; null when the step has none.
NodePtr row_step_reduction(const Step& step);

// Calls read(input) for what `node` reads: its inputs and, for a matmul whose operand is a cast of
// an f16/bf16 value to f32 (f32_form.hpp's widens_storage_float), the value under the cast too:
// when no step computes the cast (fuse.hpp), the matmul's GEMM reads that value and converts it as
// it packs. Passes that order steps by what they read use this, so the value is written before the
// product runs, and the runtime keeps it until then. (When a step does compute the cast, the value
// under it may be no step's output: a read of it is then of nothing, and orders nothing.)
template <class Read>
void for_each_read(const Node& node, Read&& read) {
  for (const auto& in : node.inputs()) read(in);
  if (node.op() == Op::matmul)
    for (const auto& in : node.inputs())
      if (widens_storage_float(*in)) read(in->input(0));
}

// Per step of `plan`, the values (view bases, ir::view_base) its nodes read that no later step and
// no graph output reads: what a run may free once the step has run. In step order, each value
// once. A function of the plan alone, so a cached plan computes it once.
std::vector<std::vector<const Node*>> values_last_read(const Plan& plan);

// The plan as text: which node went into which step, and why each value is materialised.
std::string print_plan(const Plan& plan);

}  // namespace tensorjit::ir
