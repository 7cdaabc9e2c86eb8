// The differential fuzzer's shrinker (graph_shrinker.hpp) on random graphs, with checks that fail
// for a known reason: what it returns still fails, is smaller, and computes the same values.
#include <doctest/doctest.h>

#include <algorithm>

#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>

#include "fuzz/graph_shrinker.hpp"
#include "ir/random_graph.hpp"
#include "runtime/value_bytes.hpp"

namespace ir = tensorjit::ir;
using tensorjit::testing::shrink_graph;

namespace {

bool holds(const ir::Graph& graph, ir::Op op) {
  const auto order = ir::topological_order(graph);
  return std::any_of(order.begin(), order.end(), [&](const ir::NodePtr& n) { return n->op() == op; });
}

}  // namespace

TEST_CASE("the shrinker cuts a random graph down to the op its check looks for") {
  int shrunk = 0;
  // Enough seeds that ten graphs with a mul turn up whatever ops the random graphs draw.
  for (std::uint64_t seed = 0; seed < 400 && shrunk < 10; ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = seed;
    options.bind_inputs = true;
    options.max_nodes = 30;
    const ir::Graph graph = tensorjit::testing::random_graph(options);
    if (!holds(graph, ir::Op::mul)) continue;
    const auto fails = [](const ir::Graph& g) { return holds(g, ir::Op::mul); };
    const ir::Graph small = shrink_graph(graph, fails);
    CAPTURE(seed);
    CHECK(fails(small));
    CHECK(small.outputs.size() == 1);
    // What is left: the mul and what feeds it directly (inputs, constants, expands of them).
    const auto order = ir::topological_order(small);
    INFO(ir::print(small));
    CHECK(order.size() <= 6);
    CHECK(order.size() <= ir::topological_order(graph).size());
    ++shrunk;
  }
  CHECK(shrunk == 10);
}

TEST_CASE("a cut binds the interpreter's value: the shrunk graph computes what the original did") {
  for (std::uint64_t seed = 100; seed < 130; ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = seed;
    options.bind_inputs = true;
    options.max_outputs = 1;
    const ir::Graph graph = tensorjit::testing::random_graph(options);
    const auto expected = tensorjit::testing::bytes_of(ir::interpret(graph).at(0));
    // Fails while the output's values are those of the original graph and the output's op is kept.
    const ir::Op last = graph.outputs.at(0)->op();
    const auto fails = [&](const ir::Graph& g) {
      return g.outputs.at(0)->op() == last && tensorjit::testing::bytes_of(ir::interpret(g).at(0)) == expected;
    };
    const ir::Graph small = shrink_graph(graph, fails);
    CAPTURE(seed);
    CHECK(fails(small));
    for (const auto& input : small.outputs.at(0)->inputs()) CHECK(ir::topological_order(ir::Graph{{input}}).size() <= 2);
  }
}
