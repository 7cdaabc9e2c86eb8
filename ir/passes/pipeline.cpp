#include "ir/passes/pipeline.hpp"

#include "ir/passes/canonicalize.hpp"
#include "ir/passes/fold_views.hpp"
#include "ir/passes/fuse_epilogues.hpp"
#include "ir/passes/fuse_reductions.hpp"
#include "ir/passes/fuse_rows.hpp"

namespace tensorjit::ir {
namespace {

bool same_graph(const Graph& a, const Graph& b) {
  if (a.outputs.size() != b.outputs.size()) return false;
  for (std::size_t i = 0; i < a.outputs.size(); ++i)
    if (a.outputs[i] != b.outputs[i]) return false;
  return true;
}

template <typename Pass> Graph run_pass(const char* name, Pass pass, const Graph& graph, PipelineLog* log) {
  const auto start = std::chrono::steady_clock::now();
  Graph after = pass(graph);
  if (log) {
    log->passes.push_back(PassRecord{name, !same_graph(graph, after),
                                     std::chrono::steady_clock::now() - start, after});
  }
  return after;
}

}  // namespace

Plan plan_graph(const Graph& graph, PipelineLog* log) {
  Graph g = run_pass("canonicalize", canonicalize, graph, log);
  g = run_pass("fold_views", fold_views, g, log);
  verify(g);
  return fuse_epilogues(fuse_rows(fuse_reductions(fuse(g))));
}

}  // namespace tensorjit::ir
