// log, log2 and log1p in native f32.
//
// Range reduction: x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) read from the bits
// (subnormal x are first scaled by 2^23), f = (1 + f) - 1 exact.
// Polynomial: log(1 + f) = f - f^2 / 2 + f^3 p(f), p of degree 7, a near-minimax fit of
// log(1 + f)'s relative error on the interval with f32 coefficients (2^-27.4;
// scripts/vector_math_f32_fit.py). -f^2 / 2 is exact inside one FMA, so of the tail (at most a
// fifth of the result) only the f^3 p part (a third of it) carries p's roundings.
// Reconstruction: k ln2 + f + tail with ln2 = ln2_hi + ln2_lo, ln2_hi of 13 bits (k ln2_hi exact);
// k ln2_hi + f by Fast2Sum (|k ln2_hi| >= 0.69 > |f|, or k == 0), its error joins the small
// terms, and the result is rounded once at the end. log2 multiplies f + tail by 1/ln2 as pairs
// and adds k by Fast2Sum (k is exact, so log2 of a power of two is exact).
// Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <limits>
#include <utility>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kLn2High = 0x1.62ep-1;
constexpr double kLn2Low = 0x1.0bfbe8p-15;
constexpr std::int64_t kSqrtHalfBits = 0x3f3504f3;  // sqrt(1/2) rounded to f32
constexpr double kSqrtHalf = 0x1.6a09e6p-1;         // the same value
constexpr double kSmallestNormal = 0x1p-126;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr double kInverseLn2High = 0x1.715476p+0;
constexpr double kInverseLn2Low = 0x1.4ae0cp-26;

// x = 2^k (1 + f) for finite x > 0 (others give unspecified values, selected away), and
// log(1 + f) = f + tail.
struct Reduced {
  llvm::Value* k;  // real
  llvm::Value* f;
  llvm::Value* tail;
};

// x = 2^k m, m in [sqrt_half, 2 sqrt_half) with sqrt_half = sqrt(1/2) rounded to f32, k real.
// Where the host has AVX-512, vgetexp and vgetmant ([1, 2), subnormals included) and one halving:
// three operations fewer than the bits below (log in cache 0.23 -> 0.195 ns against libmvec
// AVX-512's 0.21, vecmath_kernels), and the same k and m (m = x 2^-k exactly on both paths, in
// the same interval; tests/codegen/vector_math_portable_test.cpp).
std::pair<llvm::Value*, llvm::Value*> exponent_and_mantissa(MathBuilder& m, llvm::Value* x) {
  auto [exponent, one_to_two] = m.x86_exponent_and_mantissa(x);
  if (exponent != nullptr) {
    llvm::Value* upper = m.greater_equal(one_to_two, m.real(2 * kSqrtHalf));  // exact: 0x3fb504f3
    return {m.select(upper, m.add(exponent, m.real(1.0)), exponent),
            m.select(upper, m.mul(one_to_two, m.real(0.5)), one_to_two)};
  }
  auto& b = m.ir();
  llvm::Value* subnormal = m.less(x, m.real(kSmallestNormal));
  llvm::Value* scaled = m.select(subnormal, m.mul(x, m.real(0x1p23)), x);
  llvm::Value* bits = m.to_bits(scaled);
  llvm::Value* biased = b.CreateAShr(b.CreateSub(bits, m.integer(kSqrtHalfBits)), 23);
  llvm::Value* mantissa = m.from_bits(b.CreateSub(bits, b.CreateShl(biased, 23)));
  llvm::Value* k = b.CreateSIToFP(
      b.CreateSub(biased, b.CreateSelect(subnormal, m.integer(23), m.integer(0))), m.real_type());
  return {k, mantissa};
}

Reduced reduce(MathBuilder& m, llvm::Value* x) {
  auto [k, mantissa] = exponent_and_mantissa(m, x);
  llvm::Value* f = m.sub(mantissa, m.real(1.0));
  // p by Estrin's scheme, (c0 + c1 f) + f^2 (c2 + c3 f) + f^4 ((c4 + c5 f) + f^2 (c6 + c7 f)):
  // one multiplication more than Horner's rule, three FMAs deep instead of seven (log in cache
  // 0.231 -> 0.218 ns, vecmath_kernels).
  llvm::Value* f2 = m.mul(f, f);
  llvm::Value* f4 = m.mul(f2, f2);
  auto pair = [&](double c, double c_next) { return m.fma(f, m.real(c_next), m.real(c)); };
  llvm::Value* low = m.fma(f2, pair(0x1.99a01ep-3, -0x1.54728cp-3), pair(0x1.555554p-2, -0x1.000226p-2));
  llvm::Value* high = m.fma(f2, pair(0x1.05602ep-3, -0x1.38cf2p-4), pair(0x1.22d8f8p-3, -0x1.0d81f2p-3));
  llvm::Value* p = m.fma(f4, high, low);
  llvm::Value* cube_part = m.mul(m.mul(f2, f), p);
  // -f^2 / 2 = f (-f / 2), exact inside the FMA: the tail is rounded once.
  return {k, f, m.fma(f, m.mul(m.real(-0.5), f), cube_part)};
}

// glibc's special values: +-0 gives -inf, x < 0 NaN, NaN and +inf themselves; x in (0, inf)
// keeps `result`.
llvm::Value* special_cases(MathBuilder& m, llvm::Value* x, llvm::Value* result) {
  llvm::Value* zero = m.real(0.0);
  llvm::Value* infinity = m.real(kInfinity);
  llvm::Value* not_positive = m.select(m.equal(x, zero), m.real(-kInfinity),
                                       m.real(std::numeric_limits<double>::quiet_NaN()));
  result = m.select(m.equal(x, infinity), infinity, result);
  return m.select(m.greater(x, zero), result, not_positive);
}

}  // namespace

llvm::Value* log(MathBuilder& m, llvm::Value* x) {
  auto [k, f, tail] = reduce(m, x);
  DoubleDouble head = m.fast_two_sum(m.mul(k, m.real(kLn2High)), f);
  llvm::Value* small_terms = m.add(m.fma(k, m.real(kLn2Low), tail), head.lo);
  return special_cases(m, x, m.add(head.hi, small_terms));
}

// log1p(x) = log(u) + c / u with u = 1 + x rounded and c its exact rounding error (TwoSum), as in
// fdlibm s_log1p.c and the f64 log1p: c / u (|c / u| <= 2^-24) joins log's small terms before the
// one final rounding, so small |x| keeps its relative accuracy (u = 1: the result is about c).
// Zeros are returned unchanged (log1p(-0) == -0); u's special cases are log's: x = -1 gives -inf,
// x < -1 NaN, +inf and NaN themselves.
llvm::Value* log1p(MathBuilder& m, llvm::Value* x) { return log1p_of_pair(m, x, nullptr); }

llvm::Value* log1p_of_pair(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo) {
  DoubleDouble u = m.two_sum(m.real(1.0), x);
  auto [k, f, tail] = reduce(m, u.hi);
  DoubleDouble head = m.fast_two_sum(m.mul(k, m.real(kLn2High)), f);
  // log(u + c) = log(u) + t - t^2 / 2 + ..., t = c / u: the square counts where u = 1 and t is
  // the whole result (x near 2^-24).
  llvm::Value* t = m.div(x_lo == nullptr ? u.lo : m.add(u.lo, x_lo), u.hi);
  llvm::Value* correction = m.fma(m.mul(t, m.real(-0.5)), t, t);
  llvm::Value* small_terms =
      m.add(m.fma(k, m.real(kLn2Low), m.add(tail, correction)), head.lo);
  llvm::Value* result = special_cases(m, u.hi, m.add(head.hi, small_terms));
  return m.select(m.equal(x, m.real(0.0)), x, result);
}

// log2(x) = k + (f + tail) / ln2: f + tail as a Fast2Sum pair (|tail| < |f|), its head times 1/ln2
// as an FMA product pair, the small terms added to its error, and k added by Fast2Sum
// (|k| >= 1 > |(f + tail) / ln2|, or k == 0); one final rounding.
llvm::Value* log2(MathBuilder& m, llvm::Value* x) {
  auto [k, f, tail] = reduce(m, x);
  DoubleDouble log_m = m.fast_two_sum(f, tail);
  DoubleDouble scaled = m.two_product(log_m.hi, m.real(kInverseLn2High));
  llvm::Value* scaled_lo = m.fma(log_m.lo, m.real(kInverseLn2High),
                                 m.fma(log_m.hi, m.real(kInverseLn2Low), scaled.lo));
  DoubleDouble sum = m.fast_two_sum(k, scaled.hi);
  return special_cases(m, x, m.add(sum.hi, m.add(sum.lo, scaled_lo)));
}

}  // namespace tensorjit::codegen::vector_math::f32
