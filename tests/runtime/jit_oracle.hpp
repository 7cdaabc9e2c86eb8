// The runtime suites' oracle check: a graph run through the JIT'd plan against the reference
// interpreter, bit for bit.
#pragma once

#include <doctest/doctest.h>

#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "runtime/src/executor.hpp"
#include "runtime/value_bytes.hpp"

namespace tensorjit::testing {

inline void check_against_interpreter(const ir::Graph& graph) {
  std::vector<ir::Value> expected = ir::interpret(graph);
  std::vector<ir::Value> actual = detail::run_graph(graph);
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("output " << i << " of\n" << ir::print(graph) << "\nplan:\n" << ir::print_plan(ir::plan_graph(graph)));
    CHECK(actual[i].dtype == expected[i].dtype);
    CHECK(actual[i].layout.shape == expected[i].layout.shape);
    CHECK(bytes_of(actual[i]) == bytes_of(expected[i]));
  }
}

}  // namespace tensorjit::testing
