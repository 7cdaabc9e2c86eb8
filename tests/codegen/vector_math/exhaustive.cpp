// Every one of the 2^32 f32 inputs through each unary vector math op (JIT'd loop kernels at the
// native width), against the double-precision reference of vector_math_bounds.hpp. Prints the
// worst error per op and where, and checks the documented bounds. Minutes per op: not part of the
// default suite (ctest label `exhaustive`; scripts/setup.sh runs ctest with -LE exhaustive):
//   ctest --test-dir build -L exhaustive --output-on-failure
// Two threads share the inputs; the op list is vector_math_bounds.hpp's, one subcase per op
// (-sc=exp,tanh runs those alone). pow and atan2, of two arguments, get dense sweeps instead
// (below).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "vector_math_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using tensorjit::DType;

namespace {

constexpr std::uint64_t kChunk = std::uint64_t{1} << 22;
constexpr std::uint64_t kInputs = std::uint64_t{1} << 32;

// The worst error of `op` over the bit patterns [first, last) in chunks, with one kernel.
codegen::testing::WorstError scan(const codegen::testing::OpKernel<float>& kernel, ir::Op op,
                                  std::uint64_t first, std::uint64_t last) {
  codegen::testing::WorstError worst;
  std::vector<float> x(kChunk);
  for (std::uint64_t start = first; start < last; start += kChunk) {
    for (std::uint64_t i = 0; i < kChunk; ++i) {
      const auto bits = static_cast<std::uint32_t>(start + i);
      std::memcpy(&x[i], &bits, sizeof bits);
    }
    const auto chunk = codegen::testing::measure(kernel, op, x);
    worst.add(chunk.ulp, chunk.x);
  }
  return worst;
}

// Pairs of a binary op measured in chunks of kChunk against the double reference.
class PairBatch {
 public:
  PairBatch(const codegen::testing::OpKernel<float>& kernel, ir::Op op) : kernel_(kernel), op_(op) {}
  void push(float a, float b) {
    x_.push_back(a);
    y_.push_back(b);
    if (x_.size() == kChunk) flush();
  }
  codegen::testing::WorstError finish() {
    if (!x_.empty()) flush();
    return worst_;
  }

 private:
  void flush() {
    const auto chunk = codegen::testing::measure(kernel_, op_, x_, y_);
    worst_.add(chunk.ulp, chunk.x, chunk.y);
    x_.clear();
    y_.clear();
  }
  const codegen::testing::OpKernel<float>& kernel_;
  ir::Op op_;
  std::vector<float> x_, y_;
  codegen::testing::WorstError worst_;
};

// pow over two dense sweeps, each pair against the double reference:
//   - x over every 16th bit pattern (every sign, binade, NaN, inf, subnormal), each with three y:
//     y = target / log|x| for a target stepping through [-110, 95] (results from underflow to
//     overflow, thresholds included), that y rounded to an integer (odd and even, for negative x)
//     and to a half-integer;
//   - y over every 64th bit pattern against eight bases (both signs, near 1, large and small).
codegen::testing::WorstError pow_sweep(const codegen::testing::OpKernel<float>& kernel,
                                       std::uint64_t first, std::uint64_t last) {
  PairBatch batch(kernel, ir::Op::pow);
  auto push = [&](float a, float b) { batch.push(a, b); };
  constexpr float kBases[] = {0.5f, -2.0f, 3.0f, -0.75f, 1.0000001f, 0.99999994f, 1e-30f, -7.5e20f};
  for (std::uint64_t bits = first; bits < last; ++bits) {
    float value;
    const auto word = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &word, sizeof value);
    if (bits % 16 == 0) {
      const double target = -110.0 + 205.0 * static_cast<double>((bits >> 4) % 4099) / 4098.0;
      const double exponent = target / std::log(std::fabs(static_cast<double>(value)));
      push(value, static_cast<float>(exponent));
      push(value, static_cast<float>(std::round(exponent)));
      push(value, static_cast<float>(std::round(exponent * 2) / 2));
    }
    if (bits % 64 == 0) push(kBases[(bits >> 6) % 8], value);
  }
  return batch.finish();
}

}  // namespace

// atan2(y, x) over two dense sweeps: y over every 32nd bit pattern against eight x, and x over
// every 32nd bit pattern against eight y (both signs, 1, around 1, tiny, huge, infinite, zero).
codegen::testing::WorstError atan2_sweep(const codegen::testing::OpKernel<float>& kernel,
                                         std::uint64_t first, std::uint64_t last) {
  PairBatch batch(kernel, ir::Op::atan2);
  constexpr float kOthers[] = {1.0f, -1.0f, 0.75f, -3.0f, 1e-30f, -7.5e20f, HUGE_VALF, -0.0f};
  for (std::uint64_t bits = first; bits < last; ++bits) {
    if (bits % 32 != 0) continue;
    float value;
    const auto word = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &word, sizeof value);
    for (float other : kOthers) {
      batch.push(value, other);
      batch.push(other, value);
    }
  }
  return batch.finish();
}

TEST_CASE("vector math f32: all 2^32 inputs of every unary op (pow, atan2: dense sweeps) are within the bounds") {
  codegen::Jit jit;
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    SUBCASE(std::string(ir::op_name(op)).c_str()) {
      codegen::testing::OpKernel<float> kernel(jit, op);
      const bool pow = op == ir::Op::pow;
      auto sweep = [&](std::uint64_t first, std::uint64_t last) {
        if (op == ir::Op::atan2) return atan2_sweep(kernel, first, last);
        return pow ? pow_sweep(kernel, first, last) : scan(kernel, op, first, last);
      };
      codegen::testing::WorstError halves[2];
      std::thread second([&] { halves[1] = sweep(kInputs / 2, kInputs); });
      halves[0] = sweep(0, kInputs / 2);
      second.join();
      codegen::testing::WorstError worst = halves[0];
      worst.add(halves[1].ulp, halves[1].x, halves[1].y);
      const double bound = codegen::testing::ulp_bound(op, DType::f32);
      std::printf("f32 %-10s max %.4f ulp at x = %a (%.9g)", std::string(ir::op_name(op)).c_str(),
                  worst.ulp, worst.x, worst.x);
      if (ir::info(op).arity == 2) std::printf(" y = %a (%.9g)", worst.y, worst.y);
      std::printf(", bound %g\n", bound);
      std::fflush(stdout);
      CHECK(worst.ulp <= bound);
    }
  }
}
