// floor, ceil, round, trunc, isnan, isinf, isfinite, tan, atan, atan2, var, std, logsumexp, eye,
// tril and triu through the public API: against the interpreter bit for bit (the vector math ops
// within their tolerance, in test_jit_against_interpreter.cpp), against values worked out by hand
// (numpy's where they differ from C's), and the plans they fuse into. ctest reruns the "*JIT*"
// cases at every VECTOR_BITS and at 1 and 2 threads.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/tensorjit.hpp>

#include "jit_oracle.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
using tensorjit::testing::check_against_interpreter;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void check(const std::vector<tj::Tensor>& results) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& result : results) nodes.push_back(tj::detail::node_of(result, "test"));
  check_against_interpreter(tj::detail::graph_for(nodes));
}

std::string plan_of(const tj::Tensor& result) {
  return ir::print_plan(ir::plan_graph(tj::detail::graph_for({tj::detail::node_of(result, "test")})));
}

// Halves, near-halves, integers beyond 2^23 and 2^52, and the special values, in 1000 elements.
tj::Tensor rounding_inputs(tj::DType dtype) {
  std::vector<double> values = {0.5,  1.5,  2.5,  -0.5, -1.5, -2.5, 0.49999999999999994,
                                -0.0, 0.0,  kNaN, kInf, -kInf, 8388609.0, 4503599627370497.0,
                                1e300, -1e-310, 0.4999999701976776, 3.7, -3.7};
  std::mt19937_64 rng(3);
  while (values.size() < 1000)
    values.push_back(std::round(std::uniform_real_distribution<double>(-40, 40)(rng)) / 4);
  return tj::tensor<double>({1000}, values).astype(dtype);
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("rounding and classes JIT: floor, ceil, round, trunc, isnan, isinf, isfinite, bit for bit") {
    for (tj::DType dtype : {tj::f32, tj::f64}) {
      CAPTURE(dtype);
      const tj::Tensor x = rounding_inputs(dtype);
      x.eval();
      check({tj::floor(x), tj::ceil(x), tj::round(x), tj::trunc(x)});
      check({tj::isnan(x), tj::isinf(x), tj::isfinite(x), tj::round(x.flip(0) * 3) + tj::floor(x)});
    }
    const tj::Tensor ints = tj::arange(-5, 5, 1, tj::i32);
    check({tj::floor(ints), tj::round(ints), tj::isnan(ints), tj::isfinite(ints > 0)});
  }

  TEST_CASE("rounding JIT: round takes halves to even as numpy.round, at every width") {
    const tj::Tensor x = tj::tensor<float>({8}, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.5f, 0.49999997f, -0.4f});
    CHECK(tj::round(x).to_vector<float>() ==
          std::vector<float>{0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 4.0f, 0.0f, -0.0f});
    CHECK(std::signbit(tj::round(x).to_vector<float>()[3]));
    CHECK(tj::floor(tj::tensor<double>({2}, {-0.5, 0.5})).to_vector<double>() == std::vector<double>{-1.0, 0.0});
    CHECK(tj::isfinite(tj::tensor<double>({3}, {kNaN, kInf, 1.0})).to_vector<bool>() ==
          std::vector<bool>{false, false, true});
  }

  TEST_CASE("trigonometry JIT: tan, atan and atan2 of the API, dtypes and special angles") {
    const tj::Tensor y = tj::tensor<double>({6}, {0.0, -0.0, 1.0, -1.0, kInf, 0.0});
    const tj::Tensor x = tj::tensor<double>({6}, {-0.0, -1.0, 0.0, -kInf, -kInf, 2.0});
    const auto angles = tj::atan2(y, x).to_vector<double>();
    const double pi = std::numbers::pi;
    CHECK(angles == std::vector<double>{pi, -pi, pi / 2, -pi, std::atan2(kInf, -kInf), 0.0});
    CHECK(tj::atan2(tj::arange(3, tj::i32), tj::arange(3, tj::i64)).dtype() == tj::f32);
    CHECK(tj::tan(tj::arange(3, tj::i32)).dtype() == tj::f32);
    const auto tangents = tj::tan(tj::tensor<float>({3}, {-0.0f, 0.785398163f, 1e30f})).to_vector<float>();
    CHECK(std::signbit(tangents[0]));
    CHECK(tangents[1] == doctest::Approx(1.0f).epsilon(1e-6));
    CHECK(tangents[2] == doctest::Approx(std::tan(1e30f)).epsilon(1e-6));
    CHECK(tj::atan(tj::tensor<double>({2}, {kInf, -1.0})).to_vector<double>() ==
          std::vector<double>{pi / 2, -pi / 4});
  }

  TEST_CASE("statistics JIT: var and std with correction, keepdims and integer inputs") {
    std::mt19937_64 rng(5);
    std::vector<double> values(7 * 130);
    for (auto& value : values) value = std::uniform_real_distribution<double>(-3, 5)(rng);
    const tj::Tensor x = tj::tensor<double>({7, 130}, values);
    x.eval();
    // The two-pass sums of one row, in double, in the reduction's own order (reduction_order.hpp
    // adds in blocks; for 130 elements this is within a few ulp of a left-to-right sum).
    double mean = 0;
    for (int j = 0; j < 130; ++j) mean += values[j];
    mean /= 130;
    double squares = 0;
    for (int j = 0; j < 130; ++j) squares += (values[j] - mean) * (values[j] - mean);
    CHECK(x.var({1}).to_vector<double>()[0] == doctest::Approx(squares / 130).epsilon(1e-14));
    CHECK(x.var({1}, false, 1).to_vector<double>()[0] == doctest::Approx(squares / 129).epsilon(1e-14));
    CHECK(x.std({-1}, true, 1).shape() == tj::Shape{7, 1});
    CHECK(x.std({1}, false, 1).to_vector<double>()[0] == doctest::Approx(std::sqrt(squares / 129)).epsilon(1e-14));
    CHECK(tj::tensor<double>({2}, {1, 3}).var({}, false, 2).item<double>() == kInf);  // 2 / 0, PyTorch
    CHECK(tj::arange(4, tj::i32).var().dtype() == tj::f32);
    CHECK(tj::arange(4, tj::i32).var().item<float>() == 1.25f);
    check({x.var({1}), x.std({0}, true, 1), x.var(), x.astype(tj::f32).var({0, 1}, false, 3)});
    // Over the last axis: one row step (the mean and the centred sum of squares of each row).
    const std::string plan = plan_of(x.std({1}, false, 1));
    CHECK(plan.find("step 0: row") != std::string::npos);
    CHECK(plan.find("step 1") == std::string::npos);
    CHECK_THROWS_WITH_AS(x.var({1}, false, -1), doctest::Contains("var: correction"), tj::Error);
    CHECK_THROWS_WITH_AS(x.std({2}), doctest::Contains("std"), tj::Error);
  }

  TEST_CASE("statistics JIT: logsumexp is stable and follows PyTorch at infinities") {
    const tj::Tensor x = tj::tensor<double>({4, 3}, {1000, 1000, 1000, -kInf, -kInf, -kInf,
                                                     1, kInf, 2, 0, kNaN, 1});
    const auto sums = tj::logsumexp(x, {1}).to_vector<double>();
    CHECK(sums[0] == doctest::Approx(1000 + std::log(3.0)).epsilon(1e-15));
    CHECK(sums[1] == -kInf);
    CHECK(sums[2] == kInf);
    CHECK(std::isnan(sums[3]));
    CHECK(tj::logsumexp(x, {1}, true).shape() == tj::Shape{4, 1});
    const tj::Tensor small = tj::tensor<float>({2, 2}, {0.5f, -1, 2, 3});
    CHECK(tj::logsumexp(small).item<float>() ==
          doctest::Approx(std::log(std::exp(0.5) + std::exp(-1.0) + std::exp(2.0) + std::exp(3.0))));
    CHECK(tj::logsumexp(tj::arange(3, tj::i64)).dtype() == tj::f32);
    const tj::Tensor wide = tj::tensor<float>({3, 1000}, std::vector<float>(3000, 0.25f)) * tj::arange(3000, tj::f32).reshape({3, 1000});
    wide.eval();
    // One row step reads each row once (the max and the sum of exponentials), then a loop over
    // the per-row values only.
    const std::string plan = plan_of(tj::logsumexp(wide, {1}));
    CHECK(plan.find("step 0: row over f32[3, 1000]") != std::string::npos);
    CHECK(plan.find("step 1: loop over bool[3]") != std::string::npos);
    CHECK(plan.find("step 2") == std::string::npos);
    check({tj::logsumexp(wide, {1}), tj::logsumexp(wide, {0}, true), tj::logsumexp(x, {1})});
    CHECK_THROWS_WITH_AS(tj::logsumexp(tj::zeros({2, 0}), {1}), doctest::Contains("logsumexp"), tj::Error);
  }

  TEST_CASE("triangles JIT: eye, tril and triu are iota comparisons fused into one loop kernel") {
    CHECK(tj::eye(3).to_vector<float>() == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
    CHECK(tj::eye(2, 3, tj::i64).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0, 0, 0, 1, 0});
    CHECK(tj::eye(0).shape() == tj::Shape{0, 0});
    const tj::Tensor x = tj::arange(1, 2 * 3 * 4 + 1, 1, tj::f32).reshape({2, 3, 4});
    x.eval();
    std::vector<float> lower, upper;
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
          const float value = static_cast<float>(1 + b * 12 + i * 4 + j);
          lower.push_back(j <= i - 1 ? value : 0.0f);
          upper.push_back(j >= i + 1 ? value : 0.0f);
        }
    CHECK(tj::tril(x, -1).to_vector<float>() == lower);
    CHECK(tj::triu(x, 1).to_vector<float>() == upper);
    // One loop step reads x and writes the result: no mask is materialised.
    const std::string plan = plan_of(tj::tril(x) * 2);
    CHECK(plan.find("step 0: loop") != std::string::npos);
    CHECK(plan.find("step 1") == std::string::npos);
    check({tj::tril(x), tj::triu(x, -2), tj::tril(x.transpose(), 5), tj::triu(x > 5),
           tj::eye(5, 3, tj::f64), tj::tril(tj::ones({70, 90}), 3)});
    CHECK_THROWS_WITH_AS(tj::tril(tj::ones({3})), doctest::Contains("tril: needs a matrix"), tj::Error);
  }
}
