// Every one of the 2^32 f32 inputs through each unary vector math op (JIT'd loop kernels at the
// native width), against the double-precision reference of vector_math_bounds.hpp. Prints the
// worst error per op and where, and checks the documented bounds. Minutes per op: not part of the
// default suite (ctest label `exhaustive`; scripts/setup.sh runs ctest with -LE exhaustive):
//   ctest --test-dir build -L exhaustive --output-on-failure
// Two threads share the inputs; the op list is vector_math_bounds.hpp's, one subcase per op
// (-sc=exp,tanh runs those alone).
#include <doctest/doctest.h>

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

}  // namespace

TEST_CASE("vector math f32: all 2^32 inputs of every unary op are within the bounds") {
  codegen::Jit jit;
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    if (op == ir::Op::pow) continue;
    SUBCASE(std::string(ir::op_name(op)).c_str()) {
      codegen::testing::OpKernel<float> kernel(jit, op);
      codegen::testing::WorstError halves[2];
      std::thread second([&] { halves[1] = scan(kernel, op, kInputs / 2, kInputs); });
      halves[0] = scan(kernel, op, 0, kInputs / 2);
      second.join();
      codegen::testing::WorstError worst = halves[0];
      worst.add(halves[1].ulp, halves[1].x);
      const double bound = codegen::testing::ulp_bound(op, DType::f32);
      std::printf("f32 %-10s max %.4f ulp at x = %a (%.9g), bound %g\n",
                  std::string(ir::op_name(op)).c_str(), worst.ulp, worst.x, worst.x, bound);
      std::fflush(stdout);
      CHECK(worst.ulp <= bound);
    }
  }
}
