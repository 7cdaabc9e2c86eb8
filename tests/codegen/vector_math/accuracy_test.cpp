// The vector math ops (codegen/src/vector_math) against references (vector_math_testing.hpp):
// f32 over a dense sample of all bit patterns (every 509th: 8.4 million, every binade), f64 over
// ten million inputs per op (four million spread over every binade and sign, six million over the
// op's interesting range), pow over pairs that keep the result finite, atan2 over pairs of every
// binade and of nearby magnitudes. The worst errors are
// printed (MESSAGE) and asserted against the documented bounds. The exhaustive f32 check is the
// separate `vector_math_exhaustive` target (ctest label `exhaustive`).
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "vector_math_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::OpKernel;
using codegen::testing::WorstError;
using tensorjit::DType;

namespace {

constexpr std::uint64_t kSampleStride = 509;
constexpr std::size_t kBinadeSamples = 4'000'000;
constexpr std::size_t kRangeSamples = 6'000'000;

void report(const char* what, ir::Op op, const WorstError& worst, double bound) {
  MESSAGE(std::string(what) << " " << ir::op_name(op) << ": max " << worst.ulp << " ulp at x = "
                << worst.x << (ir::info(op).arity == 2 ? " y = " + std::to_string(worst.y) : "")
                << " (bound " << bound << ")");
  CHECK(worst.ulp <= bound);
}

}  // namespace

TEST_CASE("vector math f32: a dense sample of all bit patterns is within the bounds") {
  codegen::Jit jit;
  std::vector<float> x;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += kSampleStride) {
    float value;
    const auto word = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &word, sizeof value);
    x.push_back(value);
  }
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    if (ir::info(op).arity == 2) continue;  // pow and atan2: below
    CAPTURE(ir::op_name(op));
    OpKernel<float> kernel(jit, op);
    report("f32", op, codegen::testing::measure(kernel, op, x),
           codegen::testing::ulp_bound(op, DType::f32));
  }
}

TEST_CASE("vector math f64: ten million inputs per op over every binade and the op's range") {
  codegen::Jit jit;
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    if (ir::info(op).arity == 2) continue;  // pow and atan2: below
    CAPTURE(ir::op_name(op));
    std::mt19937_64 rng(static_cast<std::uint64_t>(op) + 7);
    const auto range = codegen::testing::interesting_range(op, DType::f64);
    std::vector<double> x;
    x.reserve(kBinadeSamples + kRangeSamples);
    for (std::size_t i = 0; i < kBinadeSamples; ++i)
      x.push_back(codegen::testing::random_binade_double(rng));
    for (std::size_t i = 0; i < kRangeSamples; ++i)
      x.push_back(codegen::testing::random_in_range(rng, range.lowest, range.highest));
    OpKernel<double> kernel(jit, op);
    report("f64", op, codegen::testing::measure(kernel, op, x),
           codegen::testing::ulp_bound(op, DType::f64));
  }
}

// x over every binade (both signs: negative x with integer y), y chosen so that |y log|x|| stays
// below 745, with integers, halves and small values mixed in.
template <typename T> void check_pow(std::size_t count) {
  codegen::Jit jit;
  std::mt19937_64 rng(99);
  std::vector<T> x, y;
  const double log_limit = sizeof(T) == 4 ? 100.0 : 740.0;
  while (x.size() < count) {
    double base = std::fabs(codegen::testing::random_binade_double(rng));
    if (sizeof(T) == 4) {
      base = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng), int(rng() % 250) - 125);
    }
    if (!(base > 0) || std::isinf(base) || base == 1) continue;
    const double target = std::uniform_real_distribution<double>(-log_limit, log_limit)(rng);
    double exponent = target / std::log(base);
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 1) exponent = std::round(exponent);
    if (kind == 2) exponent = std::round(exponent * 2) / 2;
    const bool negative = kind == 1 && rng() % 2 == 0;
    const T cast_base = static_cast<T>(negative ? -base : base);
    const T cast_exponent = static_cast<T>(exponent);
    if (!std::isfinite(cast_exponent) || cast_base == 0) continue;
    x.push_back(cast_base);
    y.push_back(cast_exponent);
  }
  OpKernel<T> kernel(jit, ir::Op::pow);
  const DType dtype = sizeof(T) == 4 ? DType::f32 : DType::f64;
  report(sizeof(T) == 4 ? "f32" : "f64", ir::Op::pow, codegen::testing::measure(kernel, ir::Op::pow, x, y),
         codegen::testing::ulp_bound(ir::Op::pow, dtype));
}

TEST_CASE("vector math pow: sampled pairs are within the bound") {
  check_pow<float>(4'000'000);
  check_pow<double>(10'000'000);
}

// atan2(y, x) (the reference's x is atan2's y): half the pairs of two random binades and signs
// (results from 0 to pi, subnormal quotients), half of magnitudes within a factor 4 of each other
// (results near the reduction's interval ends and near +-pi/4, +-3pi/4).
template <typename T> void check_atan2(std::size_t count) {
  codegen::Jit jit;
  std::mt19937_64 rng(23);
  std::vector<T> y, x;
  while (y.size() < count) {
    double first = codegen::testing::random_binade_double(rng);
    double second = codegen::testing::random_binade_double(rng);
    if (sizeof(T) == 4) {
      first = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), int(rng() % 300) - 150);
      second = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), int(rng() % 300) - 150);
    }
    if (y.size() % 2 == 1) second = first * std::uniform_real_distribution<double>(-4, 4)(rng);
    const T cast_first = static_cast<T>(first), cast_second = static_cast<T>(second);
    if (!std::isfinite(cast_first) || !std::isfinite(cast_second)) continue;
    y.push_back(cast_first);
    x.push_back(cast_second);
  }
  OpKernel<T> kernel(jit, ir::Op::atan2);
  const DType dtype = sizeof(T) == 4 ? DType::f32 : DType::f64;
  report(sizeof(T) == 4 ? "f32" : "f64", ir::Op::atan2,
         codegen::testing::measure(kernel, ir::Op::atan2, y, x),
         codegen::testing::ulp_bound(ir::Op::atan2, dtype));
}

TEST_CASE("vector math atan2: sampled pairs are within the bound") {
  check_atan2<float>(4'000'000);
  check_atan2<double>(10'000'000);
}
