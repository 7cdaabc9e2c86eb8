// Row kernels (issue 6): reduce-then-broadcast graphs run as one JIT'd function per block of rows
// (runtime/src/row_kernel_step.cpp), against the interpreter bit for bit: row lengths across lane
// and block boundaries, dtypes, views (strided, negative, broadcast), per-row inputs, rows over
// several axes, and rows that do not merge (which run part by part instead). ctest reruns the
// "*JIT*" cases at every VECTOR_BITS and at 1 and 2 threads.
#include <algorithm>
#include <utility>

#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "jit_oracle.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
using tensorjit::testing::check_against_interpreter;

namespace {

ir::Graph graph_of(const std::vector<tj::Tensor>& results) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& result : results) nodes.push_back(tj::detail::node_of(result, "test"));
  return tj::detail::graph_for(nodes);
}

// Checks the results against the interpreter and that the plan has a row step.
void check_row_step(const std::vector<tj::Tensor>& results) {
  const ir::Graph graph = graph_of(results);
  const std::string plan = ir::print_plan(ir::plan_graph(graph));
  INFO(plan);
  CHECK(plan.find("row over") != std::string::npos);
  check_against_interpreter(graph);
}

// Values with ties, both signs and a spread of magnitudes, as `dtype`, shaped [rows, columns].
tj::Tensor rows_of(std::int64_t rows, std::int64_t columns, tj::DType dtype) {
  auto index = tj::arange(0, rows * columns, 1);
  auto spread = tj::remainder(index * 7919, tj::full({1}, 1013, index.dtype())) - 500;
  auto values = spread.astype(tj::f64) * 0.37;
  return values.astype(dtype).reshape({rows, columns}).eval();
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("row kernels JIT: reduce-then-broadcast rows of every length, bit for bit") {
    // Rows shorter than the 64 reduction lanes are all tail: whole native vectors (16: an
    // attention row; 17, 31, 48 with a scalar rest at some width), then elements.
    for (std::int64_t columns : {2, 3, 16, 17, 31, 48, 63, 64, 65, 127, 1000, 4095, 4096, 4097, 9000}) {
      for (std::int64_t rows : {1, 37}) {
        CAPTURE(columns);
        CAPTURE(rows);
        auto x = rows_of(rows, columns, tj::f32);
        auto gamma = tj::cos(tj::arange(0, columns, 1).astype(tj::f32)).eval();
        auto centred = x - x.sum({-1}, true) / static_cast<double>(columns);
        auto variance = (centred * centred).sum({-1}, true) / static_cast<double>(columns);
        check_row_step({x - x.max({-1}, true)});
        check_row_step({centred / tj::sqrt(variance + 1e-5f) * gamma});
        check_row_step({x * tj::rsqrt((x * x).sum({-1}, true) / static_cast<double>(columns) + 1e-6f)});
        // Several outputs: the per-row values and the rows.
        auto shifted = x - x.min({-1}, true);
        check_row_step({shifted / shifted.sum({-1}, true), x.min({-1}, true)});
      }
    }
  }

  TEST_CASE("row kernels JIT: no rows, and rows of no columns") {
    auto no_rows = rows_of(0, 7, tj::f32);
    check_against_interpreter(graph_of({no_rows - no_rows.sum({-1}, true)}));
    auto empty_rows = rows_of(5, 0, tj::f32);
    check_against_interpreter(graph_of({empty_rows - empty_rows.sum({-1}, true),
                                        empty_rows.sum({-1}, true) + 1.0f}));
  }

  TEST_CASE("row kernels JIT: f64, integer and bool rows") {
    for (std::int64_t columns : {5, 64, 4099}) {
      CAPTURE(columns);
      auto x64 = rows_of(11, columns, tj::f64);
      check_row_step({x64 / x64.sum({-1}, true) - x64.max({-1}, true)});
      auto x32 = rows_of(11, columns, tj::i32);
      // Integer sums accumulate in i64, so the row's sum is i64 and the difference promotes.
      check_row_step({x32 - x32.max({-1}, true)});
      check_row_step({x32 * 3 - x32.sum({-1}, true)});
      auto positive = x32 > 0;
      check_row_step({tj::where(positive.any({-1}, true), x32, x32 * 2) +
                      positive.all({-1}, true).astype(tj::i32)});
    }
  }

  TEST_CASE("row kernels JIT: strided, negative and broadcast views, per-row inputs") {
    auto base = rows_of(67, 53, tj::f32);
    auto transposed = base.transpose();  // [53, 67], columns 53 elements apart
    check_row_step({transposed - transposed.max({-1}, true)});
    auto flipped = base.flip(1);  // negative column stride
    check_row_step({flipped / flipped.sum({-1}, true)});
    auto upside = base.flip(0);  // negative row stride
    check_row_step({upside - upside.sum({-1}, true) / 53.0});
    // A per-row input read by a consumer, and one broadcast back over the row by a loop.
    auto weights = tj::sin(tj::arange(0, 67, 1).astype(tj::f32)).reshape({67, 1}).eval();
    auto scaled = base.max({-1}, true) * weights;
    check_row_step({base - scaled + weights});
    // A row that is one broadcast element.
    auto constant_rows = weights.expand({67, 53});
    check_row_step({constant_rows - constant_rows.sum({-1}, true)});
  }

  TEST_CASE("row kernels JIT: reductions alone over the same rows") {
    for (std::int64_t columns : {3, 64, 4097}) {
      CAPTURE(columns);
      auto x = rows_of(23, columns, tj::f32);
      auto centred = x - x.sum({-1}, true) / static_cast<double>(columns);
      check_row_step({(centred * centred).sum({-1})});  // a two-pass variance, no loop part
    }
  }

  TEST_CASE("row kernels JIT: cheap values between phases are recomputed by their readers") {
    // layernorm as written: x - mean and its square are computed again by the variance's reduce
    // phase and by the last loop phase, not stored between them (recompute_row_values.hpp).
    // The plan's part lines ("  part 1 (reduce): %4:div ..."), each without its node numbers.
    auto parts_of = [](const tj::Tensor& result) {
      const std::string plan = ir::print_plan(ir::plan_graph(graph_of({result})));
      std::vector<std::string> parts;
      std::size_t at = 0;
      while ((at = plan.find("  part ", at)) != std::string::npos) {
        const std::size_t end = plan.find('\n', at);
        std::string line = plan.substr(at, end - at), ops;
        for (std::size_t i = line.find(':'); i < line.size();) {
          const std::size_t op = line.find(':', i + 1);
          if (op == std::string::npos) break;
          const std::size_t space = line.find(' ', op);
          ops += " " + line.substr(op + 1, space == std::string::npos ? std::string::npos : space - op - 1);
          i = space == std::string::npos ? line.size() : space;
        }
        parts.push_back(line.substr(2, line.find(':') - 2) + ":" + ops);
        at = end;
      }
      return parts;
    };
    // No rows, and rows of no columns (whose sums are 0).
    for (auto [rows, columns] : {std::pair<std::int64_t, std::int64_t>{0, 7}, {5, 0}}) {
      auto x = rows_of(rows, columns, tj::f32);
      auto centred = x - x.sum({-1}, true) / static_cast<double>(std::max<std::int64_t>(columns, 1));
      auto variance = (centred * centred).sum({-1}, true);
      check_against_interpreter(graph_of({centred * tj::rsqrt(variance + 1e-5f) + 0.5f}));
    }
    for (std::int64_t columns : {1, 2, 61, 1009, 4099}) {
      for (std::int64_t rows : {1, 13}) {
        CAPTURE(columns);
        CAPTURE(rows);
        auto base = rows_of(2 * rows, columns + 2, tj::f32);
        const std::vector<tj::Tensor> inputs = {
            base.slice(0, 0, rows, 1).slice(1, 0, columns, 1),
            base.slice(0, 0, 2 * rows, 2).slice(1, 2, columns + 2, 1).flip(1),  // strided, negative
            base.slice(0, 0, 1, 1).slice(1, 0, columns, 1).expand({rows, columns})};  // broadcast
        auto gamma = tj::cos(tj::arange(0, columns, 1).astype(tj::f32)).eval();
        for (const auto& x : inputs) {
          auto centred = x - x.sum({-1}, true) / static_cast<double>(columns);
          auto variance = (centred * centred).sum({-1}, true) / static_cast<double>(columns);
          auto normalised = centred * tj::rsqrt(variance + 1e-5f) * gamma + 0.5f;
          check_row_step({normalised});
          check_row_step({tj::layernorm(x, gamma, gamma, 1e-5)});
          if (columns > 1 && rows > 1)
            CHECK(parts_of(normalised) ==
                  std::vector<std::string>{"part 0 (reduce): reduce_sum",
                                           "part 1 (reduce): div sub mul reduce_sum",
                                           "part 2 (loop): div sub div add rsqrt mul mul add"});
          // Written too (a step output): stored once, read back by the later phases.
          check_row_step({normalised, centred});
          // Built from two rows (x and x reversed): recomputed by its readers; from three: stored.
          auto mixed = x - x.flip(1) * x.max({-1}, true);
          check_row_step({mixed / (mixed * mixed).sum({-1}, true)});
          auto other = (x * 3.0f).eval();
          auto three = mixed + other;
          check_row_step({three / (three * three).sum({-1}, true)});
          if (columns > 1 && rows > 1) {
            CHECK(parts_of(mixed / (mixed * mixed).sum({-1}, true)) ==
                  std::vector<std::string>{"part 0 (reduce): reduce_max", "part 1 (reduce): mul sub mul reduce_sum",
                                           "part 2 (loop): mul sub div"});
            CHECK(parts_of(three / (three * three).sum({-1}, true)) ==
                  std::vector<std::string>{"part 0 (reduce): reduce_max", "part 1 (loop): mul sub add mul",
                                           "part 2 (reduce): reduce_sum", "part 3 (loop): div"});
          }
          // exp is not cheap: softmax keeps exp(x - max) in a loop phase.
          if (columns > 1 && rows > 1)
            CHECK(parts_of(tj::softmax(x, -1)) ==
                  std::vector<std::string>{"part 0 (reduce): reduce_max", "part 1 (loop): sub exp",
                                           "part 2 (reduce): reduce_sum", "part 3 (loop): div"});
        }
      }
    }
  }

  // Rows of whole 64-byte lines: with TENSORJIT_STREAMING_MB=0 (the 2-thread rerun in
  // tests/runtime/CMakeLists.txt) their final values are stored with streaming stores, and a
  // value kept between phases gets a scratch row of its own instead of the output row. softmax's
  // shape with sqrt in place of exp (not cheap, so kept, and correctly rounded, so bit for bit).
  TEST_CASE("row kernels JIT: softmax-shaped rows of whole cache lines, as streamed") {
    for (std::int64_t columns : {16, 64, 1024, 4096}) {
      for (std::int64_t rows : {1, 7}) {
        CAPTURE(columns);
        CAPTURE(rows);
        for (tj::DType dtype : {tj::f32, tj::f64}) {
          auto x = rows_of(rows, dtype == tj::f32 ? columns : columns / 2, dtype);
          auto kept = tj::sqrt(tj::abs(x - x.max({-1}, true)));
          check_row_step({kept / kept.sum({-1}, true)});
          check_row_step({kept / kept.sum({-1}, true), x.max({-1}, true), x * 2.0f});
        }
      }
    }
  }

  // Sums over the rows (a backward pass's dgamma and dbeta) joined to the row step that reads the
  // same rows: each row goes to its lane of the strict order over the rows, lanes walked one by
  // one, the tree and the blocks summed after the kernel. Row counts across lane and block
  // boundaries, so partial last groups and blocks; a sum of a value the step computes (connected)
  // and of an input alone (joined because the step reads it).
  TEST_CASE("row kernels JIT: sums over the rows in the row step, bit for bit") {
    for (std::int64_t rows : {1, 5, 31, 32, 33, 63, 64, 65, 100, 4095, 4096, 4097, 9000}) {
      for (std::int64_t columns : {1, 3, 64, 200}) {
        for (tj::DType dtype : {tj::f32, tj::f64}) {
          CAPTURE(rows);
          CAPTURE(columns);
          CAPTURE(dtype);
          auto x = rows_of(rows, columns, dtype);
          auto dy = tj::cos(rows_of(rows, columns, dtype)).eval();
          auto centred = x - x.sum({-1}, true) / static_cast<double>(columns);
          auto normed = centred * tj::rsqrt((centred * centred).sum({-1}, true) / static_cast<double>(columns) + 1e-5);
          const std::vector<tj::Tensor> results = {normed * dy - (dy * normed).sum({-1}, true), (dy * normed).sum({0}),
                                                   dy.sum({0}, true)};
          const std::string plan = ir::print_plan(ir::plan_graph(graph_of(results)));
          INFO(plan);
          // Both sums are parts of the one row step.
          CHECK(plan.find("step 1") == std::string::npos);
          std::size_t parts = 0;
          for (std::size_t at = plan.find("reduce over the rows"); at != std::string::npos;
               at = plan.find("reduce over the rows", at + 1))
            ++parts;
          CHECK(parts == 2);
          check_row_step(results);
        }
      }
    }
  }

  TEST_CASE("row kernels JIT: sums over the rows of several axes, and of rows that run part by part") {
    auto x = rows_of(4 * 5, 3 * 33, tj::f32).reshape({4, 5, 3, 33});
    // Rows over two axes: the sums take both.
    check_row_step({x - x.max({-1}, true), (x * x).sum({0, 1})});
    check_row_step({x / x.sum({-2, -1}, true), x.sum({0, 1}, true) * 2.0f});
    // Rows that no single stride walks: the row step runs part by part, the sum after the chunks.
    auto gapped = x.slice(1, 0, 5, 2);
    auto shifted = gapped - gapped.max({-1}, true);
    check_row_step({shifted, (shifted * gapped).sum({0, 1})});
    // f32 and f64 sums in one step: calls walk rows 32 apart, two of the f32 sums' lanes each.
    for (std::int64_t rows : {31, 100, 4100}) {
      CAPTURE(rows);
      auto y = rows_of(rows, 45, tj::f32);
      check_row_step({y - y.max({-1}, true), (y * 3.0f).sum({0}), y.astype(tj::f64).sum({0}, true)});
      CHECK(ir::print_plan(ir::plan_graph(graph_of({y - y.max({-1}, true), (y * 3.0f).sum({0}),
                                                    y.astype(tj::f64).sum({0}, true)})))
                .find("step 1") == std::string::npos);
    }
    // No rows.
    auto none = rows_of(0, 7, tj::f32);
    check_against_interpreter(graph_of({none - none.sum({-1}, true), (none * 2.0f).sum({0})}));
  }

  TEST_CASE("row kernels JIT: rows and columns over several axes") {
    auto x = rows_of(4 * 5, 3 * 33, tj::f32).reshape({4, 5, 3, 33});
    check_row_step({x - x.max({-1}, true)});
    check_row_step({x / x.sum({-2, -1}, true)});
    // Rows that no single stride walks (every other index of axis 1): the step runs part by part.
    auto gapped = x.slice(1, 0, 5, 2);
    check_row_step({gapped - gapped.max({-1}, true)});
    // Columns that no single stride walks.
    auto gapped_columns = x.slice(3, 0, 33, 2);
    check_row_step({gapped_columns / gapped_columns.sum({-2, -1}, true)});
  }
}  // TEST_SUITE

// Issue 27, finding 1: a reduction over every axis whose consumer reads an operand whose outer
// stride is smaller than its inner one (a transposed view, a column-major external buffer, a
// stride-2 vector broadcast over rows) ran part by part (run_row_step) with the consumer's kernel
// compiled in the tile form, which that runner does not launch that way: a crash at every n.
TEST_SUITE("runtime") {
  TEST_CASE("row kernels JIT: a reduction over every axis with a consumer reading transposed") {
    for (std::int64_t n : {2, 3, 5, 16, 63, 64, 65, 128, 129}) {
      CAPTURE(n);
      auto x = rows_of(n, n, tj::f32);
      std::vector<float> column_major(static_cast<std::size_t>(n * n));
      for (std::size_t i = 0; i < column_major.size(); ++i)
        column_major[i] = 0.25f * static_cast<float>(i % 37) - 3;
      auto external = tj::from_blob(column_major.data(), {n, n}, {1, n}, tj::f32);
      auto every_other = rows_of(1, 2 * n, tj::f32).reshape({2 * n}).slice(0, 0, 2 * n, 2);
      const std::vector<tj::Tensor> operands = {x.transpose(), external,
                                                every_other.reshape({1, n}).expand({n, n}),
                                                every_other.reshape({n, 1}).expand({n, n})};
      for (const auto& operand : operands) {
        check_row_step({x.sum() + operand});
        check_row_step({x.max() + operand});
        check_row_step({x.mean() * operand});
        check_row_step({operand - x.sum({0, 1}, true)});
        check_row_step({operand / x.max({0, 1}, true)});
        auto produced = x * x - 1.0f;  // a producer fused into the reduction's part
        check_row_step({produced.sum() + operand});
        check_row_step({operand.sum() - operand});  // the reduction reads it transposed too
      }
    }
  }
}  // TEST_SUITE
