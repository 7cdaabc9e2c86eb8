// Shrinks a graph on which a check fails to a smaller graph on which it still fails, so that a
// random graph the differential fuzzer caught becomes a reproducer a person can read.
//
// Three moves, each kept only when the check still fails and the graph got smaller:
//   - keep one output alone; an operand of the single output becomes the output;
//   - cut: a node becomes an input bound to the value the interpreter gives it, so every node
//     below it sees the same values while the nodes above it (not read elsewhere) drop out;
//   - bypass: a node becomes one of its operands of the same dtype and shape.
// Moves are tried from the outputs up, and the passes repeat until none helps or `budget` checks
// have run. Inputs keep their layouts (negative, zero and gapped strides), and cut inputs are
// contiguous, so the shrunk graph is the same kind of graph the fuzzer draws.
#pragma once

#include <functional>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::testing {

ir::Graph shrink_graph(const ir::Graph& failing, const std::function<bool(const ir::Graph&)>& fails,
                       int budget = 400);

}  // namespace tensorjit::testing
