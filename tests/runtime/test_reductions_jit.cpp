// JIT'd reductions (issue 6) against the interpreter, bit for bit in strict mode: random graphs of
// reductions with elementwise producers and consumers over views, every axis set, keepdims, odd
// shapes; blocks and threads; the plan's fused steps. ctest reruns the "*JIT*" cases at every
// VECTOR_BITS and at 1 and 2 threads (tests/runtime/CMakeLists.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>
#include <tensorjit/tensorjit.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "ir/random_graph.hpp"
#include "jit_oracle.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
using tensorjit::testing::check_against_interpreter;

namespace {

// Ops whose JIT code is not the interpreter's bit for bit by contract (vector polynomials with a
// ULP bound) or that do not touch reductions: left out so that a mismatch here is a reduction's.
const std::vector<ir::Op> kNotBitExact = {
    ir::Op::exp,   ir::Op::exp2,  ir::Op::expm1,     ir::Op::log,  ir::Op::log2,
    ir::Op::log1p, ir::Op::sin,   ir::Op::cos,       ir::Op::tanh, ir::Op::sigmoid,
    ir::Op::erf,   ir::Op::gelu,  ir::Op::gelu_tanh, ir::Op::silu, ir::Op::softplus,
    ir::Op::pow,   ir::Op::tan,   ir::Op::atan,      ir::Op::atan2, ir::Op::matmul};

std::string plan_text(const tj::Tensor& tensor) {
  return ir::print_plan(
      ir::plan_graph(tj::detail::graph_for({tj::detail::node_of(tensor, "test")})));
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("reductions JIT: random graphs of reductions, producers and consumers, bit for bit") {
    for (std::uint64_t seed : tj::testing::random_graph_seeds(9000, 600)) {
      tj::testing::RandomGraphOptions options;
      options.seed = seed;
      options.bind_inputs = true;
      options.excluded_ops = kNotBitExact;
      options.max_elements = seed % 9 == 0 ? 20000 : 400;
      check_against_interpreter(tj::testing::random_graph(options));
    }
  }

  // The lanes of a float sum start at -0.0, the identity of IEEE addition: a sum of negative zeros
  // is -0.0 (numpy), at every length (head, vector loop, tail, several blocks) and along either axis.
  TEST_CASE("reductions JIT: a sum of negative zeros is -0.0") {
    for (tj::DType dtype : {tj::f32, tj::f64}) {
      for (std::int64_t n : {1, 7, 64, 1000, 70000}) {
        auto zeros = tj::tensor<double>({n}, std::vector<double>(static_cast<std::size_t>(n), -0.0)).astype(dtype);
        zeros.eval();
        const double total = zeros.sum().astype(tj::f64).item<double>();
        CHECK_MESSAGE((total == 0.0 && std::signbit(total)), "n = ", n, ": ", total);
        if (n < 7) continue;  // an empty sum is +0.0
        auto rows = zeros.slice(0, 0, n - n % 7).reshape({7, -1});
        for (std::int64_t axis : {0, 1}) {
          for (double value : rows.sum({axis}).astype(tj::f64).to_vector<double>())
            CHECK_MESSAGE(std::signbit(value), "n = ", n, ", axis ", axis);
        }
      }
    }
  }

  TEST_CASE("reductions JIT: every axis set of a strided 3-d input, keepdims or not, odd extents") {
    for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::boolean}) {
      auto base = (tj::arange(0, 7 * 5 * 13, 1).astype(dtype) * 3 - 17).reshape({7, 5, 13});
      if (dtype == tj::boolean) base = tj::arange(0, 7 * 5 * 13, 1).reshape({7, 5, 13}) > 200;
      auto viewed = base.permute({2, 0, 1}).flip(0);  // [13, 7, 5], a negative stride
      for (int mask = 0; mask < 8; ++mask) {
        std::vector<std::int64_t> axes;
        for (int axis = 0; axis < 3; ++axis)
          if (mask & (1 << axis)) axes.push_back(axis);
        for (bool keepdims : {false, true}) {
          CAPTURE(mask);
          CAPTURE(keepdims);
          std::vector<tj::Tensor> results;
          if (dtype == tj::boolean) {
            results = {viewed.any(axes, keepdims), viewed.all(axes, keepdims),
                       viewed.sum(axes, keepdims)};
          } else {
            auto produced = viewed * viewed - 2;
            results = {produced.sum(axes, keepdims), viewed.max(axes, keepdims) + 1,
                       viewed.min(axes, keepdims), (viewed - 1).prod(axes, keepdims)};
          }
          for (const auto& result : results)
            check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
        }
      }
    }
  }

  // Rows shorter than the 64 (f32) or 32 (f64) lanes, or past whole groups of them, end in a tail
  // of native vectors whose last one is masked to the row (contiguous rows); a strided row's tail
  // goes element by element. Both are the interpreter's bits, NaN and signed zeros included.
  TEST_CASE("reductions JIT: short and odd rows, contiguous and strided, NaN and -0.0, every dtype") {
    for (tj::DType dtype : {tj::f32, tj::f64, tj::f16, tj::i32, tj::i64, tj::boolean}) {
      for (std::int64_t columns : {1, 5, 15, 16, 17, 33, 40, 100}) {
        CAPTURE(tj::dtype_name(dtype));
        CAPTURE(columns);
        const std::int64_t rows = 23;
        auto index = tj::arange(0, rows * columns, 1);
        auto modulo = [&](const tj::Tensor& t, std::int64_t m) { return tj::remainder(t, tj::scalar(m)); };
        tj::Tensor x = (modulo(index * 7919, 201) - 100).astype(tj::f64) / 8.0;
        if (is_floating(dtype)) {
          x = tj::where(modulo(index, 37) == 5, tj::scalar(std::nan("")), x);
          x = tj::where(modulo(index, 11) == 3, tj::scalar(-0.0), x);
        }
        x = (dtype == tj::boolean ? modulo(index, 3) == 0 : x.astype(dtype)).reshape({rows, columns}).eval();
        auto strided = tj::concat({x, x}, 1).slice(1, 0, 2 * columns, 2);  // columns 2 apart
        for (const tj::Tensor& rows_of : {x, strided}) {
          std::vector<tj::Tensor> results = {rows_of.sum({1}), rows_of.max({1}), rows_of.min({1})};
          if (dtype != tj::boolean) results.push_back((rows_of * 2).sum({1}, true));
          for (const auto& result : results)
            check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
        }
      }
    }
  }

  TEST_CASE("reductions JIT: full sums of many blocks split across threads keep the strict order") {
    for (std::int64_t n : {0, 1, 63, 64, 65, 4095, 4096, 4097, 100003, 1 << 20}) {
      CAPTURE(n);
      auto x = tj::sin(tj::arange(0, n, 1).astype(tj::f32) * 0.37f).eval();
      auto squared = (x - 0.25f) * (x - 0.25f);
      check_against_interpreter(
          tj::detail::graph_for({tj::detail::node_of(squared.sum(), "test")}));
      check_against_interpreter(
          tj::detail::graph_for({tj::detail::node_of(x.astype(tj::f64).sum() * 2.0, "test")}));
    }
    // Few outputs with many blocks each, and many outputs: both ways of splitting.
    auto wide = (tj::arange(0, 3 * 300007, 1).astype(tj::f32) * 1e-3f).reshape({3, 300007}).eval();
    check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(wide.sum({1}), "test")}));
    check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(wide.sum({0}), "test")}));
    check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(wide.max({1}), "test")}));
  }

  TEST_CASE("reductions JIT: column reductions run in tiles of outputs, tails one by one") {
    for (std::int64_t columns : {64, 200, 1100, 4100}) {
      CAPTURE(columns);
      const std::int64_t rows = columns == 4100 ? 70 : 4099;
      auto x = (tj::sin(tj::arange(0, rows * columns, 1).astype(tj::f32)) * 100.0f)
                   .reshape({rows, columns})
                   .eval();
      auto scale = tj::cos(tj::arange(0, columns, 1).astype(tj::f32)).eval();
      std::vector<tj::Tensor> results = {x.sum({0}),
                                         (x * scale).sum({0}, true) + 1.0f,
                                         x.max({0}),
                                         x.min({0}),
                                         x.astype(tj::f64).sum({0}),
                                         x.astype(tj::i32).sum({0}),
                                         (x > 0.0f).any({0}),
                                         (x > -99.0f).all({0}),
                                         x.reshape({rows, 1, columns}).sum({0, 1})};
      for (const auto& result : results)
        check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
    }
  }

  TEST_CASE("reductions JIT: column reductions in wide strips, lane by lane with the tree folded in") {
    // Wide strips are 64 and 32 tiles of V outputs (4096 and 2048 of f32, 2048 and 1024 of f64 /
    // i64 accumulators), then strips of 16 tiles, tiles and single outputs; the inputs start 3
    // elements into their rows (not on a line). `narrow`, one block of 600 rows (lanes 0-23 hold
    // 10 elements: a group of 8 panels and 2 more, the others 9), has strips of each width;
    // `tall`, two blocks, the second of 65 rows (two elements in lane 0, one in the others), a
    // 32-tile strip of f32 and a 64-tile one of f64 and i64. Max and min run over values of one sign with
    // +0.0 and -0.0 among them (which zero comes out depends on the order) and a NaN now and then.
    auto values = [](std::int64_t rows, std::int64_t columns) {
      auto i = tj::arange(0, rows * columns, 1).astype(tj::f32);
      auto x = tj::sin(i) * 100.0f;
      x = tj::where(tj::cos(i * 3.0f) > 0.99f, x * 0.0f, x);
      x = tj::where(tj::cos(i * 7.0f) > 0.999999f, tj::sqrt(-tj::abs(x) - 1.0f), x);
      return x.reshape({rows, columns}).eval().slice(1, 3, columns);
    };
    auto non_positive = [](const tj::Tensor& x) { return tj::where(x > 0.0f, x * -1.0f, x); };
    auto narrow = values(600, 4096 + 2048 + 1024 + 64 + 5 + 3);
    auto scale = tj::cos(tj::arange(0, 4096 + 2048 + 1024 + 64 + 5, 1).astype(tj::f32)).eval();
    auto tall = values(4096 + 65, 2048 + 64 + 5 + 3);
    std::vector<tj::Tensor> results = {narrow.sum({0}),
                                       (narrow * scale).sum({0}, true) + 1.0f,
                                       non_positive(narrow).max({0}),
                                       (non_positive(narrow) * -1.0f).min({0}),
                                       (narrow > 0.0f).any({0}),
                                       non_positive(narrow).astype(tj::f64).max({0}),
                                       tall.sum({0}),
                                       tall.astype(tj::f64).sum({0}),
                                       non_positive(tall).astype(tj::f64).max({0}),
                                       tall.astype(tj::i32).sum({0})};
    for (const auto& result : results)
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
  }

  TEST_CASE("reductions JIT: column reductions whose row pieces start mid-lane, in groups of panels") {
    // Reduced axes [3, 700] that do not merge (every other index of the middle axis): pieces of
    // 700 elements start on lanes 0, 60 and 56 of a block, so each has a head, whole groups of
    // panels and a tail; the kept axis (100, then 64 and one output) is contiguous.
    auto x = (tj::sin(tj::arange(0, 3 * 1400 * 164, 1).astype(tj::f32)) * 50.0f)
                 .reshape({3, 1400, 164})
                 .eval();
    auto strided = x.slice(1, 0, 1400, 2);
    for (const auto& result : {strided.sum({0, 1}), strided.max({0, 1}), (strided * 2.0f).min({0, 1}),
                               strided.astype(tj::f64).sum({0, 1}), (strided > 0.0f).any({0, 1})})
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
  }

  TEST_CASE("reductions JIT: argmax and argmin over every axis: ties, NaN, signed zeros, dtypes") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Few distinct values (ties), -0.0 next to 0.0, and NaN in some rows only.
    std::vector<float> values(static_cast<std::size_t>(9 * 70 * 11));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int v = static_cast<int>(i * 7919 % 13) - 6;
      values[i] = v == 0 ? (i % 2 ? -0.0f : 0.0f) : static_cast<float>(v);
      if (i % 97 == 5) values[i] = nan;
    }
    auto base = tj::tensor<float>({9, 70, 11}, values);
    auto viewed = base.permute({1, 2, 0}).flip(1);  // [70, 11, 9], a negative stride
    for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::boolean}) {
      auto x = dtype == tj::boolean ? viewed > 0.0f : viewed.astype(dtype);
      for (std::int64_t axis = 0; axis < 3; ++axis)
        for (bool keepdims : {false, true}) {
          CAPTURE(dtype);
          CAPTURE(axis);
          CAPTURE(keepdims);
          for (const auto& result : {x.argmax(axis, keepdims), x.argmin(axis, keepdims)}) {
            const std::string plan = plan_text(result);
            INFO(plan);
            // One pass: one reduce step of the arg reduction itself (its producer cast fused in).
            CHECK(plan.find("step 1") == std::string::npos);
            CHECK(plan.find("reduce over") != std::string::npos);
            check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
          }
        }
    }
    // Long rows and columns, with producers: one NaN row, one row of all ties.
    auto wide = (tj::sin(tj::arange(0, 5 * 9000, 1).astype(tj::f32)) * 3.0f).reshape({5, 9000}).eval();
    for (const auto& result : {(wide * 2.0f).argmax(1), wide.argmin(1), wide.argmax(0), (wide + 1.0f).argmin(0),
                               tj::log(wide).argmax(1), (wide * 0.0f).argmax(1)})
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
  }

  TEST_CASE("reductions JIT: argmax and argmin in one pass: shapes, views, blocks, tiles, sentinels") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    // Values from a few distinct ones (ties across lanes, blocks and tiles), NaN now and then.
    auto values_of = [&](std::int64_t count, std::uint64_t seed, int nan_every) {
      std::vector<float> v(static_cast<std::size_t>(count));
      for (std::size_t i = 0; i < v.size(); ++i) {
        const auto h = (i + seed) * 2654435761u % 1000003;
        v[i] = static_cast<float>(static_cast<int>(h % 17) - 8);
        if (nan_every && h % static_cast<std::uint64_t>(nan_every) == 3) v[i] = nan;
      }
      return v;
    };
    auto check = [&](const tj::Tensor& result) {
      const std::string plan = plan_text(result);
      INFO(plan);
      CHECK(plan.find("step 1") == std::string::npos);
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
    };
    // Shapes with 0 and 1 and primes, rows across lane (64) and block (4096) boundaries, in every
    // dtype, over each axis, through a transposed, reversed, sliced and broadcast view.
    const std::vector<std::vector<std::int64_t>> shapes = {
        {0, 5}, {1, 1}, {1, 9001}, {3, 4099}, {67, 13}, {4100, 3}, {131, 67}, {2, 9000}, {8209, 70}};
    std::uint64_t seed = 1;
    for (const auto& shape : shapes)
      for (int nan_every : {0, 5, 1009}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        CAPTURE(nan_every);
        auto x = tj::tensor<float>(shape, values_of(shape[0] * shape[1], seed++, nan_every)).eval();
        for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::i64, tj::boolean}) {
          CAPTURE(dtype);
          auto typed = dtype == tj::boolean ? x > 2.0f : x.astype(dtype);
          for (std::int64_t axis : {0, 1}) {
            if (shape[static_cast<std::size_t>(axis)] == 0) continue;  // rejected when built
            check(typed.argmax(axis));
            check(typed.argmin(axis, true));
            check(typed.flip(axis).argmax(axis));
            check(typed.transpose().argmin(1 - axis));
          }
          if (shape[0] > 2 && shape[1] > 0) {
            check(typed.slice(0, 1, shape[0], 2).argmax(0));
            check(typed.slice(0, 1, shape[0], 2).flip(1).argmin(1));
          }
        }
      }
    auto row = tj::tensor<float>({1, 70}, values_of(70, 7, 11)).eval();
    check(row.expand({300, 70}).argmax(0));  // every output's elements equal: index 0
    check(row.expand({300, 70}).argmin(1));
    check(row.transpose().expand({70, 5000}).argmax(1));
    // Producers fused into the pass; a middle axis of a 3-d input.
    auto cube = tj::tensor<float>({7, 523, 11}, values_of(7 * 523 * 11, 99, 31)).eval();
    check((cube * -2.0f + 1.0f).argmax(1));
    check(tj::abs(cube - 3.0f).argmin(1, true));
    check((tj::abs(cube.astype(tj::i32)) - 3).argmax(2));
    // Rows of neutral values only (the lanes' start) and of other ties: the first index.
    for (float fill : {-inf, inf, 0.0f, -0.0f, nan}) {
      CAPTURE(fill);
      auto flat = tj::full({5, 4500}, fill).eval();
      check(flat.argmax(1));
      check(flat.argmin(1));
      check(flat.argmax(0));
      check(flat.argmin(0));
    }
    auto lowest = tj::full({3, 200}, std::numeric_limits<std::int32_t>::min(), tj::i32).eval();
    check(lowest.argmax(1));
    check((lowest.astype(tj::i64) - 1).argmax(0));
    auto highest = tj::full({200, 70}, std::numeric_limits<std::int32_t>::max(), tj::i32).eval();
    check(highest.argmin(0));
    check((tj::full({3, 5000}, 1.0f) > 2.0f).argmax(1));
    check((tj::full({5000, 3}, 1.0f) > 0.0f).argmin(0));
    // One output over 2^20 elements, long enough to be split by blocks across threads; the best
    // value in the last block, a NaN in the middle one.
    auto big = values_of(1 << 20, 5, 0);
    big[(1 << 20) - 5] = 100.0f;
    big[(1 << 20) - 3] = 100.0f;
    auto flat = tj::tensor<float>({1 << 20}, big).eval();
    check(flat.argmax());
    check(flat.argmin());
    check(flat.astype(tj::f64).argmax());
    big[1 << 19] = nan;
    auto with_nan = tj::tensor<float>({1 << 20}, big).eval();
    check(with_nan.argmax());
    check(with_nan.argmin());
  }

  TEST_CASE("reductions JIT: a reduction takes its producers and consumers into one step") {
    auto a = tj::arange(0, 1000, 1).astype(tj::f32).eval();
    auto b = (tj::arange(0, 1000, 1).astype(tj::f32) * 0.5f).eval();
    auto distance = tj::sqrt(((a - b) * (a - b)).sum() * 0.5f);
    const std::string plan = plan_text(distance);
    INFO(plan);
    CHECK(plan.find("step 1") == std::string::npos);  // one step
    CHECK(plan.find("reduce over") != std::string::npos);
    check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(distance, "test")}));
  }

  TEST_CASE("reductions JIT: layernorm and rmsnorm, library or hand-written, are one row step") {
    for (std::int64_t columns : {1, 7, 64, 1000, 5000}) {
      CAPTURE(columns);
      auto x = (tj::sin(tj::arange(0, 37 * columns, 1).astype(tj::f32)) * 27.0f + 3.0f)
                   .reshape({37, columns})
                   .eval();
      auto gamma = tj::cos(tj::arange(0, columns, 1).astype(tj::f32)).eval();
      auto beta = (tj::arange(0, columns, 1).astype(tj::f32) * 0.01f).eval();
      auto mean = x.sum({-1}, true) / static_cast<double>(columns);
      auto centred = x - mean;
      auto by_hand =
          centred /
          tj::sqrt((centred * centred).sum({-1}, true) / static_cast<double>(columns) + 1e-5f);
      for (const auto& result :
           {tj::layernorm(x, gamma, beta, 1e-5), tj::rmsnorm(x, gamma, 1e-6), by_hand}) {
        const std::string plan = plan_text(result);
        INFO(plan);
        // One column: the rows are single elements and a plain reduce step does it all.
        if (columns > 1) CHECK(plan.find("row over") != std::string::npos);
        CHECK(plan.find("step 1") == std::string::npos);
        check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
      }
      // In f64 the casts of gamma and beta (and of x, which two parts read) are steps of their own.
      auto in_f64 = tj::layernorm(x.astype(tj::f64), gamma, beta, 1e-5);
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(in_f64, "test")}));
    }
  }

  TEST_CASE("reductions JIT: layernorm of rows with mean 1e6 and spread 27 stays accurate") {
    // Rows of mean 1e6 whose values spread over +-27: the centred two-pass variance keeps the
    // normalised values within a few f32 ulps of 1e6 of the exact ones (E[x^2] - E[x]^2 would lose
    // everything: 1e12 in f32 has a spacing of 65536).
    const std::int64_t rows = 16, columns = 1024;
    std::vector<float> values(static_cast<std::size_t>(rows * columns));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = 1e6f + static_cast<float>(static_cast<int>(i * 7919 % 55) - 27);
    auto x = tj::tensor<float>({rows, columns}, values);
    auto ones = tj::ones({columns});
    auto zeros = tj::zeros({columns});
    auto y = tj::layernorm(x, ones, zeros, 1e-5).to_vector<float>();
    for (std::int64_t r = 0; r < rows; ++r) {
      double mean = 0, variance = 0;
      for (std::int64_t c = 0; c < columns; ++c) mean += values[r * columns + c];
      mean /= columns;
      for (std::int64_t c = 0; c < columns; ++c)
        variance += (values[r * columns + c] - mean) * (values[r * columns + c] - mean);
      variance /= columns;
      for (std::int64_t c = 0; c < columns; ++c) {
        const double exact = (values[r * columns + c] - mean) / std::sqrt(variance + 1e-5);
        CHECK(std::abs(y[r * columns + c] - exact) < 2e-2);
      }
    }
  }

  TEST_CASE("reductions JIT: softmax rows with -inf, +inf and NaN behave as PyTorch's") {
    const float inf = std::numeric_limits<float>::infinity(),
                nan = std::numeric_limits<float>::quiet_NaN();
    auto x =
        tj::tensor<float>({5, 3}, {1, 2, 3, -inf, 0, -inf, -inf, -inf, -inf, 1, inf, 2, 1, nan, 2});
    const std::string plan = plan_text(tj::softmax(x, -1));
    INFO(plan);
    CHECK(plan.find("row over") != std::string::npos);
    auto y = tj::softmax(x, -1).to_vector<float>();
    const float e1 = std::exp(-2.0f), e2 = std::exp(-1.0f), total = e1 + e2 + 1.0f;
    CHECK(std::abs(y[0] - e1 / total) < 1e-6f);
    CHECK(std::abs(y[2] - 1.0f / total) < 1e-6f);
    // -inf entries weigh nothing; a row of -inf alone is 0/0 (NaN), as PyTorch gives.
    CHECK(y[3] == 0.0f);
    CHECK(y[4] == 1.0f);
    CHECK(y[5] == 0.0f);
    for (int i = 6; i < 9; ++i) CHECK(std::isnan(y[i]));
    // +inf makes inf - inf (NaN) in its row; NaN propagates through max to its whole row.
    for (int i = 9; i < 15; ++i) CHECK(std::isnan(y[i]));
    auto log_y = tj::log_softmax(x, -1).to_vector<float>();
    CHECK(std::abs(log_y[0] - std::log(e1 / total)) < 1e-5f);
    CHECK(log_y[3] == -inf);
    CHECK(log_y[4] == 0.0f);
  }

}  // TEST_SUITE

// Issue 27, finding 3: sin and cos consuming a reduction over an empty tensor, multiplied by an
// empty external buffer without memory (from_blob allows null data for no elements).
TEST_SUITE("runtime") {
  TEST_CASE("reductions JIT: sin and cos of a reduction broadcast against an empty null from_blob") {
    auto empty = tj::from_blob(nullptr, {0}, {1}, tj::f32);
    auto mean = tj::tensor<float>({0}, {}).mean({-1}, true);  // [1], NaN
    for (const tj::Tensor& result : {tj::sin(mean * empty), tj::cos(mean * empty),
                                     tj::sin(empty * mean) + 1.0f,
                                     tj::sin(tj::tensor<float>({0}, {}).sum() + empty)}) {
      check_against_interpreter(tj::detail::graph_for({tj::detail::node_of(result, "test")}));
      tj::Tensor evaluated = result;
      evaluated.eval();
      CHECK(evaluated.shape() == tj::Shape{0});
    }
  }
}  // TEST_SUITE
