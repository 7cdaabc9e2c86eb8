// The vector math's portable paths against the AVX-512 ones (docs/vector_math.md): where the host
// has AVX-512 F and VL, p 2^k is one vscalef, f32 log's reduction vgetexp and vgetmant, and f64
// exp's table lookup vpermi2pd; hosts without take exact power-of-two factors, the exponent bits
// and loads from the table, which must give the same bits.
// vector_math::force_portable builds this host's kernels the portable way, so every op is
// compared bit for bit between the two builds: f32 over a dense sample of all bit patterns, f64
// over every binade and the op's range. (On a host without AVX-512 both builds are portable.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include "codegen/src/vector_math/math_builder.hpp"
#include "vector_math_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::OpKernel;

namespace {

// Kernels built while it lives take the portable paths.
struct PortableScope {
  PortableScope() { codegen::vector_math::force_portable(true); }
  ~PortableScope() { codegen::vector_math::force_portable(false); }
  PortableScope(const PortableScope&) = delete;
  PortableScope& operator=(const PortableScope&) = delete;
};

template <typename T> bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;  // a NaN's sign and payload are not contracted
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// op over x (and y, pow's exponents) built natively and the portable way; the first input whose
// results differ, or -1.
template <typename T>
std::ptrdiff_t first_difference(ir::Op op, const std::vector<T>& x, const std::vector<T>& y) {
  codegen::Jit native_jit;
  OpKernel<T> native(native_jit, op);
  codegen::Jit portable_jit;
  std::optional<OpKernel<T>> portable;
  {
    PortableScope scope;
    portable.emplace(portable_jit, op);
  }
  std::vector<T> native_out(x.size()), portable_out(x.size());
  const auto count = static_cast<std::int64_t>(x.size());
  native.run(x.data(), y.data(), native_out.data(), count);
  portable->run(x.data(), y.data(), portable_out.data(), count);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!same_bits(native_out[i], portable_out[i])) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

}  // namespace

TEST_CASE("vector math: the portable paths give the AVX-512 paths' bits, f32 and f64") {
  std::vector<float> x32;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 4099) {
    float value;
    const auto word = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &word, sizeof value);
    x32.push_back(value);
  }
  std::vector<float> y32(x32.rbegin(), x32.rend());
  std::mt19937_64 rng(11);
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    CAPTURE(ir::op_name(op));
    const std::ptrdiff_t f32_at = first_difference(op, x32, y32);
    CHECK_MESSAGE(f32_at < 0, "f32 x = " << (f32_at < 0 ? 0.0f : x32[f32_at]));
    const auto range = codegen::testing::interesting_range(op, tensorjit::DType::f64);
    std::vector<double> x64, y64;
    for (int i = 0; i < 200'000; ++i) {
      x64.push_back(codegen::testing::random_binade_double(rng));
      x64.push_back(codegen::testing::random_in_range(rng, range.lowest, range.highest));
      y64.push_back(codegen::testing::random_in_range(rng, -8.0, 8.0));
      y64.push_back(std::floor(codegen::testing::random_in_range(rng, -40.0, 40.0)));
    }
    const std::ptrdiff_t f64_at = first_difference(op, x64, y64);
    CHECK_MESSAGE(f64_at < 0, "f64 x = " << (f64_at < 0 ? 0.0 : x64[f64_at]));
  }
}
