// The executor: materialises tensors. It builds one graph of everything asked for (so shared
// values are computed once), replaces nodes an earlier eval already materialised by inputs over
// their buffers, runs the pipeline, and points each tensor at its result.
#pragma once

#include <vector>

#include <tensorjit/ir/graph.hpp>
#include <tensorjit/tensor.hpp>

namespace tensorjit::detail {

void evaluate(const std::vector<Tensor>& tensors);

// The graph an eval of these nodes would run: realized nodes replaced by inputs (used by eval and
// by the dumps).
ir::Graph graph_for(const std::vector<ir::NodePtr>& outputs);

// Plans and runs a graph whose inputs are all bound: one value per output.
std::vector<ir::Value> run_graph(const ir::Graph& graph);

}  // namespace tensorjit::detail
