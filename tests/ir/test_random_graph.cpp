// The random graph generator other suites rely on: deterministic, valid, and covering what its
// header promises (every op, dtype, edge extents, views with negative steps, strided inputs).
#include <set>

#include <doctest/doctest.h>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/plan.hpp>
#include <tensorjit/ir/text.hpp>

#include "ir/random_graph.hpp"

namespace ir = tensorjit::ir;
using tensorjit::testing::RandomGraphOptions;
using tensorjit::testing::random_graph;

TEST_SUITE("ir") {

TEST_CASE("random_graph: one seed gives one graph, and the graph is valid") {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    RandomGraphOptions options;
    options.seed = seed;
    ir::Graph graph = random_graph(options);
    ir::verify(graph);
    CHECK(ir::print(graph) == ir::print(random_graph(options)));
    CHECK(!graph.outputs.empty());
    CHECK(static_cast<int>(graph.outputs.size()) <= options.max_outputs);
    // The builder stops adding ops at max_nodes; one op may add a few nodes around it.
    CHECK(static_cast<int>(ir::topological_order(graph).size()) <= options.max_nodes + 8);
  }
}

TEST_CASE("random_graph: over many seeds, every op, dtype and edge case appears") {
  std::set<ir::Op> ops;
  std::set<tensorjit::DType> dtypes;
  bool zero_extent = false, prime_extent = false, negative_step = false, zero_stride = false,
       negative_stride = false, several_outputs = false, new_leading_axis = false;
  for (std::uint64_t seed = 0; seed < 600; ++seed) {
    RandomGraphOptions options;
    options.seed = seed;
    options.max_nodes = 40;
    options.fast_reductions = true;
    ir::Graph graph = random_graph(options);
    several_outputs |= graph.outputs.size() > 1;
    for (const auto& node : ir::topological_order(graph)) {
      ops.insert(node->op());
      dtypes.insert(node->dtype());
      for (auto extent : node->shape()) {
        zero_extent |= extent == 0;
        prime_extent |= extent == 7 || extent == 11;
      }
      if (node->op() == ir::Op::slice) negative_step |= node->attr<ir::SliceAttr>().step < 0;
      if (node->op() == ir::Op::expand) new_leading_axis |= node->rank() > node->input(0)->rank();
      if (node->op() == ir::Op::input) {
        for (auto stride : node->attr<ir::InputAttr>().layout.strides) {
          zero_stride |= stride == 0;
          negative_stride |= stride < 0;
        }
      }
    }
  }
  CHECK(static_cast<int>(ops.size()) == ir::kOpCount);
  CHECK(dtypes.size() == static_cast<std::size_t>(tensorjit::kDTypeCount));
  CHECK(zero_extent);
  CHECK(prime_extent);
  CHECK(negative_step);
  CHECK(zero_stride);
  CHECK(negative_stride);
  CHECK(several_outputs);
  CHECK(new_leading_axis);
}

TEST_CASE("random_graph: the options restrict what is built") {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    RandomGraphOptions options;
    options.seed = seed;
    options.elementwise_only = true;
    options.bind_inputs = true;
    options.max_rank = 2;
    options.excluded_ops = {ir::Op::pow, ir::Op::slice};
    options.dtypes = {tensorjit::DType::f32, tensorjit::DType::boolean};
    ir::Graph graph = random_graph(options);
    ir::verify(graph);
    for (const auto& node : ir::topological_order(graph)) {
      CHECK(!ir::is_reduce(node->op()));
      CHECK(node->op() != ir::Op::matmul);
      CHECK(node->op() != ir::Op::pow);
      CHECK(node->op() != ir::Op::slice);
      CHECK(node->rank() <= 2);
      CHECK((node->dtype() == tensorjit::DType::f32 || node->dtype() == tensorjit::DType::boolean));
      if (node->op() == ir::Op::input) CHECK(node->attr<ir::InputAttr>().buffer != nullptr);
    }
  }
}

TEST_CASE("random_graph: bind_random_inputs binds a parsed graph") {
  RandomGraphOptions options;
  options.seed = 3;
  options.max_nodes = 30;
  ir::Graph parsed = ir::parse(ir::print(random_graph(options)));
  ir::Graph bound = tensorjit::testing::bind_random_inputs(parsed, 11);
  ir::verify(bound);
  CHECK(ir::graphs_equal(parsed, bound));
  for (const auto& node : ir::topological_order(bound)) {
    if (node->op() == ir::Op::input) CHECK(node->attr<ir::InputAttr>().buffer != nullptr);
  }
}

TEST_CASE("random_graph: gathers of one index per row, reduced over the row, make row steps with a gathering prologue") {
  // The embedding block's shape (fuse_rows.hpp): so that the differential fuzzer checks the row
  // kernel's gathers (codegen/row_kernel.hpp, "Gathers") against the interpreter.
  int prologues = 0;
  for (std::uint64_t seed = 0; seed < 3000 && prologues < 3; ++seed) {
    RandomGraphOptions options;
    options.seed = seed;
    options.max_nodes = 40;
    const ir::Plan plan = ir::plan_graph(random_graph(options));
    for (const auto& step : plan.steps)
      if (step.kind == ir::Step::Kind::row && step.parts.front().kind == ir::Step::Kind::loop &&
          ir::computes_gather(step.parts.front()))
        ++prologues;
  }
  CHECK(prologues >= 3);
}

}  // TEST_SUITE
