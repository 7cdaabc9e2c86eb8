// The JIT'd plan against the reference interpreter, bit for bit, on random graphs. ctest runs this
// suite again at VECTOR_BITS 128, 256, 512 (a third of the seeds each) and at 1 and 2 threads
// (tests/runtime/CMakeLists.txt), so equal bits across widths and thread counts follow from
// equality with the interpreter.
// The transcendental ops are inline polynomials within an ulp bound of the interpreter's libm
// (docs/vector_math.md): the random graphs leave them out (a bound on one op says nothing about a
// chain), and each is checked alone against the interpreter within its tolerance.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>
#include <tensorjit/tensorjit.hpp>

#include "codegen/vector_math_bounds.hpp"
#include "ir/random_graph.hpp"
#include "jit_oracle.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
using tensorjit::testing::check_against_interpreter;

TEST_SUITE("runtime") {

TEST_CASE("random elementwise graphs over views: JIT == interpreter, bit for bit") {
  for (std::uint64_t seed : tj::testing::random_graph_seeds(0, 1200)) {
    tj::testing::RandomGraphOptions options;
    options.seed = seed;
    options.elementwise_only = true;
    options.bind_inputs = true;
    options.max_elements = seed % 7 == 0 ? 5000 : 300;
    options.excluded_ops = tj::codegen::testing::vector_math_ops();
    check_against_interpreter(tj::testing::random_graph(options));
  }
}

TEST_CASE("random graphs with reductions and matmuls between fused loops") {
  for (std::uint64_t seed : tj::testing::random_graph_seeds(5000, 300)) {
    tj::testing::RandomGraphOptions options;
    options.seed = seed;
    options.bind_inputs = true;
    options.excluded_ops = tj::codegen::testing::vector_math_ops();
    check_against_interpreter(tj::testing::random_graph(options));
  }
}

TEST_CASE("each transcendental op through the JIT is within its tolerance of the interpreter") {
  std::mt19937_64 rng(11);
  for (tj::DType dtype : {tj::f32, tj::f64}) {
    for (ir::Op op : tj::codegen::testing::vector_math_ops()) {
      CAPTURE(ir::op_name(op));
      CAPTURE(tj::dtype_name(dtype));
      const int arity = ir::info(op).arity;
      std::vector<ir::NodePtr> operands;
      for (int k = 0; k < arity; ++k) {
        const ir::Layout layout = ir::Layout::contiguous({3001});
        operands.push_back(ir::make_input(tj::testing::random_buffer(layout, dtype, rng, true),
                                          dtype, layout));
      }
      const ir::Graph graph{{ir::Node::make(op, operands)}};
      const std::vector<ir::Value> expected = ir::interpret(graph);
      const std::vector<ir::Value> actual = tj::detail::run_graph(graph);
      REQUIRE(actual.size() == 1);
      const auto* want = static_cast<const unsigned char*>(expected[0].buffer->data());
      const auto* got = static_cast<const unsigned char*>(actual[0].buffer->data());
      auto check = [&](auto tag) {
        using T = decltype(tag);
        auto operand = [&](int k, std::int64_t i) {
          const auto& input = operands[k]->template attr<ir::InputAttr>();
          return static_cast<const T*>(input.buffer->data())[input.layout.offset + i];
        };
        int failures = 0;
        for (std::int64_t i = 0; i < 3001; ++i) {
          const T x = operand(0, i);
          const T y = arity > 1 ? operand(1, i) : T(0);
          const T value = reinterpret_cast<const T*>(got)[actual[0].layout.offset + i * actual[0].layout.strides[0]];
          const T reference = reinterpret_cast<const T*>(want)[expected[0].layout.offset + i * expected[0].layout.strides[0]];
          if (!tj::codegen::testing::acceptable_result(op, value, reference) && ++failures <= 3) {
            CAPTURE(x);
            CAPTURE(y);
            CAPTURE(value);
            CAPTURE(reference);
            CHECK(tj::codegen::testing::acceptable_result(op, value, reference));
          }
        }
        CHECK(failures == 0);
      };
      if (dtype == tj::f32) check(float{});
      else check(double{});
    }
  }
}

TEST_CASE("large loops split across threads give the interpreter's bits") {
  auto a = (tj::arange(0, 300001, 1) * 0.001f).eval();
  auto y = tj::maximum(a * a.flip(0) + 1.0f, 0.0f) * 0.5f + tj::sqrt(a);
  check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(y, "test")}));
}

TEST_CASE("transposed operands run block by block and give the interpreter's bits") {
  // loop_step.cpp runs a rank-2 domain with an input read transposed in 64 x 64 blocks: odd,
  // empty and single-element extents, blocks cut at the edges, negative strides, several outputs
  // and dtypes, and a size split across threads.
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1, 1}, {1, 67}, {67, 1}, {67, 131}, {130, 64}, {64, 200}, {0, 5}, {5, 0}, {257, 3}, {300, 700}};
  for (auto [rows, columns] : shapes) {
    CAPTURE(rows);
    CAPTURE(columns);
    const auto n = static_cast<double>(rows * columns);
    auto a = (tj::arange(0, n, 1).reshape({rows, columns}) * 0.25f).eval();
    auto b = (tj::arange(0, n, 1).reshape({columns, rows}) * -0.5f + 3.0f).eval();
    auto sum = a + b.transpose();
    auto product = a * b.flip(0).transpose() - 1.0f;
    check_against_interpreter(tj::detail::graph_for(
        {tj::detail::node_of(sum, "test"), tj::detail::node_of(product, "test")}));
    auto ai = tj::arange(0, n, 1).reshape({rows, columns}).astype(tj::i32).eval();
    auto bi = tj::arange(0, n, 1).reshape({columns, rows}).astype(tj::i32).eval();
    check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(ai - bi.transpose() * 3, "test")}));
    // Each transposed block is copied into a scratch tile first: 8-byte and 1-byte elements,
    // columns read backwards (row stride -1) and every other element (row stride 2, from a
    // slice), and two staged inputs in one kernel.
    auto ad = a.astype(tj::f64), bd = b.astype(tj::f64).eval();
    auto mask = (b > 0.0f).eval();
    auto wide = (tj::arange(0, 2 * n, 1).reshape({columns, 2 * rows}) * 0.125f).eval();
    auto every_other = wide.slice(1, 0, std::nullopt, 2);
    check_against_interpreter(tj::detail::graph_for(
        {tj::detail::node_of(ad * bd.transpose(), "test"), tj::detail::node_of(tj::where(mask.transpose(), a, -a), "test"),
         tj::detail::node_of(a + b.flip(1).transpose(), "test"),
         tj::detail::node_of(a - every_other.transpose() + b.transpose(), "test")}));
  }
}

TEST_CASE("a second eval of the same graph compiles nothing") {
  auto x = tj::tensor<float>({4}, {1, 2, 3, 4});
  auto first = (x * 2.0f + 1.0f).eval();
  const auto compiles = tj::jit_statistics().compiles;
  auto again = (x * 2.0f + 1.0f).eval();
  CHECK(tj::jit_statistics().compiles == compiles);
  auto other_size = (tj::tensor<float>({3}, {1, 2, 3}) * 2.0f + 1.0f).eval();
  CHECK(tj::jit_statistics().compiles == compiles);
  CHECK(again.to_vector<float>() == std::vector<float>{3, 5, 7, 9});
  CHECK(other_size.to_vector<float>() == std::vector<float>{3, 5, 7});
}

}  // TEST_SUITE
