// log in native f32.
//
// Range reduction: x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) read from the bits
// (subnormal x are first scaled by 2^23), f = (1 + f) - 1 exact.
// Polynomial: log(1 + f) = f + f^2 p(f), p of degree 8, a near-minimax fit of log(1 + f)'s relative
// error on the interval with f32 coefficients (2^-27.8; scripts/vector_math_f32_fit.py). f^2 is
// exact as an FMA product pair, so the tail f^2 p (at most a fifth of the result) carries only
// p's roundings.
// Reconstruction: k ln2 + f + tail with ln2 = ln2_hi + ln2_lo, ln2_hi of 13 bits (k ln2_hi exact);
// k ln2_hi + f by Fast2Sum (|k ln2_hi| >= 0.69 > |f|, or k == 0), its error joins the small
// terms, and the result is rounded once at the end.
// Measured errors: docs/vector_math.md.
#include "f32_functions.hpp"

#include <limits>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kLn2High = 0x1.62ep-1;
constexpr double kLn2Low = 0x1.0bfbe8p-15;
constexpr std::int64_t kSqrtHalfBits = 0x3f3504f3;  // sqrt(1/2) rounded to f32
constexpr double kSmallestNormal = 0x1p-126;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

llvm::Value* log(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  llvm::Value* subnormal = m.less(x, m.real(kSmallestNormal));
  llvm::Value* scaled = m.select(subnormal, m.mul(x, m.real(0x1p23)), x);
  llvm::Value* bits = m.to_bits(scaled);
  llvm::Value* exponent = b.CreateAShr(b.CreateSub(bits, m.integer(kSqrtHalfBits)), 23);
  llvm::Value* mantissa = m.from_bits(b.CreateSub(bits, b.CreateShl(exponent, 23)));
  llvm::Value* k = b.CreateSIToFP(
      b.CreateSub(exponent, b.CreateSelect(subnormal, m.integer(23), m.integer(0))), m.real_type());
  llvm::Value* f = m.sub(mantissa, m.real(1.0));
  DoubleDouble square = m.two_product(f, f);
  llvm::Value* p = m.polynomial(f, {-0x1.fffff8p-2, 0x1.55555p-2, -0x1.000432p-2, 0x1.99a416p-3,
                                    -0x1.5425cp-3, 0x1.226e6ep-3, -0x1.0f405p-3, 0x1.085db6p-3,
                                    -0x1.383b8p-4});
  llvm::Value* tail = m.fma(square.hi, p, m.mul(square.lo, p));
  DoubleDouble head = m.fast_two_sum(m.mul(k, m.real(kLn2High)), f);
  llvm::Value* small_terms = m.add(m.fma(k, m.real(kLn2Low), tail), head.lo);
  llvm::Value* result = m.add(head.hi, small_terms);
  // glibc's special values: +-0 gives -inf, x < 0 NaN, NaN and +inf themselves.
  result = m.select(m.equal(x, m.real(0.0)), m.real(-kInfinity), result);
  result = m.select(m.less(x, m.real(0.0)), m.real(std::numeric_limits<double>::quiet_NaN()), result);
  llvm::Value* itself = b.CreateOr(m.is_nan(x), m.equal(x, m.real(kInfinity)));
  return m.select(itself, x, result);
}

}  // namespace tensorjit::codegen::vector_math::f32
