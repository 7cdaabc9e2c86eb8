// A loop body with vector math emits its main loop's registers as one wide value (LoopShape::
// interleaved), which LLVM splits register by register, and the AVX-512 helpers of
// vector_math/math_builder.cpp (vscalef, vgetexp/vgetmant, the vpermi2 table lookup) call their
// instruction once per register. Every element must still get the bits it gets in the loop of
// single vectors and in the scalar tail: here each op's whole range in one call (interleaved
// registers, then single vectors, then the tail) against the same range one element per call
// (the tail only), at every width, f32 and f64. A wrong lane order in the joined registers, or a
// table index read from another register, shows as a difference.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "codegen_test_support.hpp"
#include "vector_math_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::OpKernel;

namespace {

template <typename T> bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;  // a NaN's sign and payload are not contracted
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// 1000 elements: at 512 bits 15 interleaved iterations of 64 f32 lanes (or 32 f64), then single
// vectors, then a tail of a few; each op's own range and every binade.
template <typename T> void check_paths_agree(ir::Op op, int vector_bits, std::mt19937_64& rng) {
  const auto range = codegen::testing::interesting_range(op, tensorjit::dtype_of<T>());
  std::vector<T> x, y;
  for (int i = 0; i < 500; ++i) {
    x.push_back(static_cast<T>(codegen::testing::random_in_range(rng, range.lowest, range.highest)));
    x.push_back(static_cast<T>(codegen::testing::random_binade_double(rng)));
    y.push_back(static_cast<T>(codegen::testing::random_in_range(rng, -8.0, 8.0)));
    y.push_back(static_cast<T>(std::floor(codegen::testing::random_in_range(rng, -40.0, 40.0))));
  }
  codegen::Jit jit(codegen::testing::options_with_width(vector_bits));
  OpKernel<T> kernel(jit, op);
  const auto count = static_cast<std::int64_t>(x.size());
  std::vector<T> whole(x.size()), one_by_one(x.size());
  kernel.run(x.data(), y.data(), whole.data(), count);
  for (std::int64_t i = 0; i < count; ++i)
    kernel.run_range(x.data(), y.data(), one_by_one.data(), count, i, i + 1);
  std::ptrdiff_t first = -1;
  for (std::size_t i = 0; i < x.size() && first < 0; ++i)
    if (!same_bits(whole[i], one_by_one[i])) first = static_cast<std::ptrdiff_t>(i);
  CHECK_MESSAGE(first < 0, "element " << first << ", x = " << (first < 0 ? T(0) : x[first]));
}

}  // namespace

TEST_CASE("vector math: interleaved registers give the bits of the scalar tail at every width") {
  std::mt19937_64 rng(23);
  for (int bits : codegen::kVectorBitsChoices) {
    CAPTURE(bits);
    for (ir::Op op : codegen::testing::vector_math_ops()) {
      CAPTURE(ir::op_name(op));
      check_paths_agree<float>(op, bits, rng);
      check_paths_agree<double>(op, bits, rng);
    }
  }
}
