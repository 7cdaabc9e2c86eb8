// The runtime suites' oracle check: a graph run through the JIT'd plan against the reference
// interpreter, bit for bit; and the seeds a random-graph case runs.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "runtime/src/executor.hpp"
#include "runtime/value_bytes.hpp"
#include "runtime/src/tensor_impl.hpp"

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

// The graph of `results` (evaluated together), JIT against interpreter.
inline void check_tensors_against_interpreter(const std::vector<Tensor>& results) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& result : results) nodes.push_back(detail::node_of(result, "test"));
  check_against_interpreter(detail::graph_for(nodes));
}

// The seeds [first, first + count) of a random-graph case: all of them, or where the environment
// sets TENSORJIT_TEST_SEEDS=r/k, those whose distance from `first` is r modulo k. ctest's reruns
// at each VECTOR_BITS take one residue of 3 each (tests/runtime/CMakeLists.txt): compiling is
// nearly all their time, the default run covers every seed, and the three widths together cover
// every seed once more.
inline std::vector<std::uint64_t> random_graph_seeds(std::uint64_t first, std::uint64_t count) {
  std::uint64_t residue = 0;
  std::uint64_t modulus = 1;
  if (const char* text = std::getenv("TENSORJIT_TEST_SEEDS")) {
    const std::string spec = text;
    const auto slash = spec.find('/');
    REQUIRE_MESSAGE(slash != std::string::npos, "TENSORJIT_TEST_SEEDS is r/k, got ", spec);
    residue = std::stoull(spec.substr(0, slash));
    modulus = std::stoull(spec.substr(slash + 1));
    REQUIRE_MESSAGE((modulus > 0 && residue < modulus), "TENSORJIT_TEST_SEEDS is r/k with r < k, got ", spec);
  }
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t seed = first + residue; seed < first + count; seed += modulus) seeds.push_back(seed);
  return seeds;
}

}  // namespace tensorjit::testing
