// The pipeline from a user's graph to a fused plan: one list of named passes, each a function from
// plan to plan, run in order. Before `fuse` a plan is only its graph (no steps). Each pass is
// logged with its name, whether it changed anything and its time. A graph a pass changed is
// verified (ir::verify), and in builds with assertions (tests, debug) so is the plan. `tensorjit-dump --stage
// after:<pass>` prints the plan as a pass left it.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::ir {

using Pass = Plan (*)(const Plan& plan);

struct NamedPass {
  std::string_view name;
  Pass run;
  bool on_graph;  // rewrites the graph of a plan that has no steps yet (before fuse)
};

// canonicalize, fold_views, fuse, fuse_reductions, fuse_rows, recompute_row_values,
// fuse_epilogues (ir/passes/<name>.hpp gives each its pre- and post-conditions).
std::span<const NamedPass> pipeline_passes();

struct PassRecord {
  std::string name;
  bool changed = false;
  std::chrono::nanoseconds time{0};
  Plan after;  // the plan the pass produced
};

struct PipelineLog {
  std::vector<PassRecord> passes;
};

// Whether the code made for a constant depends on its value: canonicalize's rules read bool
// constants and 0, -0.0 and 1 in any dtype (x*1, x+0, where(true, ...)), and LLVM divides by a
// floating power of two as a multiply (a mean over 2^k elements). A constant of any other value
// is never rewritten by value, so a kernel may read it as an argument: the runtime passes such
// constants through one-element buffers, and a new value compiles nothing (docs/contracts.md).
bool is_structural_constant(DType dtype, const Scalar& value);

// Runs every pass of pipeline_passes() on `graph`; `log`, when given, receives every pass's record.
Plan plan_graph(const Graph& graph, PipelineLog* log = nullptr);

// Checks what the runtime relies on of the steps: every step has nodes and writes only values it
// computes; each value a step reads is computed inside it, by an
// earlier step, or is an input or a constant, directly or through views; and every graph output is
// such a value. Throws an internal error naming the step otherwise.
void verify_plan(const Plan& plan);

}  // namespace tensorjit::ir
