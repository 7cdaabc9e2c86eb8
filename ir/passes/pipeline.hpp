// The pipeline from a user's graph to a fused plan, as one readable list of named passes
// (docs/style.md, rule 6). Each pass is logged with its name, whether it changed the graph, and its
// time.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "ir/passes/fuse.hpp"

namespace tensorjit::ir {

struct PassRecord {
  std::string name;
  bool changed = false;
  std::chrono::nanoseconds time{0};
  Graph after;  // the graph the pass produced
};

struct PipelineLog {
  std::vector<PassRecord> passes;
};

// canonicalize -> fold_views -> verify -> fuse -> fuse_reductions -> fuse_rows -> fuse_epilogues.
// `log`, when given, receives every pass's record.
Plan plan_graph(const Graph& graph, PipelineLog* log = nullptr);

}  // namespace tensorjit::ir
