// pow in native f32: |x|^y = exp(y log|x|) with log|x| as a pair of f32 accurate to about 2^-36
// relative and y log|x| an FMA product pair, so the argument of exp is within about 2^-29 of
// y log|x| wherever the result is finite and nonzero (|y log|x|| < 104): the result's error is
// exp's (f32_exp.cpp: its parts (1 + p) 2^k, p rounded once) plus about 0.15 ulp.
//
// log|x| (the f64 log_double_double of log.cpp, in f32): |x| = 2^k m with m in [sqrt(1/2),
// sqrt 2) from the bits (subnormals scaled by 2^23), log m = 2 atanh(s) = 2s + (2/3)s^3 + s^5 T(s^2)
// with s = (m - 1) / (m + 1), |s| <= 0.1716:
//   - m + 1 is a Fast2Sum pair (1 is a multiple of m's ulp), s one division, s_lo its exact FMA
//     residual times 1/(m + 1) = (1 - s)/2;
//   - s^3 and (2/3)s^3 are FMA product pairs (2/3 in two f32), with the cubic term's share of s_lo;
//   - T holds the Taylor coefficients 2/5 ... 2/15 (truncation below 2^-44 of log m), its terms at
//     most 2^-12.5 of log m, so their f32 roundings cost about 2^-36 of it;
//   - k ln2 = k ln2_hi (exact: ln2_hi has 12 bits, |k| <= 149) + k ln2_lo (an FMA product pair);
//     the three leading terms are added by Fast2Sum (each is larger than the next, or zero), the
//     low parts after them, and the sum normalised once.
// Special values follow C99 Annex F as glibc's powf does (pow.cpp has the same selects):
//   pow(x, +-0) = 1 and pow(1, y) = 1, even for NaN;       other NaN operands give NaN;
//   x < 0 finite and y finite non-integer give NaN;       x < 0 and odd integer y negate;
//   pow(+-0, y) = +-0 / +0 for y > 0 and +-inf / +inf for y < 0 (odd integer y / other y);
//   pow(-1, +-inf) = 1; pow(x, +-inf) and pow(+-inf, y) by |x| against 1 and the sign of y.
// |y| >= 2^24 is an even integer. Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"
#include "codegen/src/vector_math/functions.hpp"

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kLn2High = 0x1.62ep-1;
constexpr double kLn2Low = 0x1.0bfbe8p-15;
constexpr double kTwoThirdsHigh = 0x1.555556p-1;
constexpr double kTwoThirdsLow = -0x1.555556p-26;
constexpr std::int64_t kSqrtHalfBits = 0x3f3504f3;  // sqrt(1/2) rounded to f32
constexpr double kSmallestNormal = 0x1p-126;
// exp(y log|x|) rounds to 0 below -103.98 and overflows above 88.73.
constexpr double kExpLowest = -105.0;

// log x for finite x > 0 as hi + lo (others give unspecified values, selected away).
DoubleDouble log_pair(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  llvm::Value* subnormal = m.less(x, m.real(kSmallestNormal));
  llvm::Value* scaled = m.select(subnormal, m.mul(x, m.real(0x1p23)), x);
  llvm::Value* bits = m.to_bits(scaled);
  llvm::Value* exponent = b.CreateAShr(b.CreateSub(bits, m.integer(kSqrtHalfBits)), 23);
  llvm::Value* mantissa = m.from_bits(b.CreateSub(bits, b.CreateShl(exponent, 23)));
  llvm::Value* k = b.CreateSIToFP(
      b.CreateSub(exponent, b.CreateSelect(subnormal, m.integer(23), m.integer(0))), m.real_type());

  llvm::Value* f = m.sub(mantissa, m.real(1.0));  // exact
  DoubleDouble d = m.fast_two_sum(m.real(1.0), mantissa);
  llvm::Value* s = m.div(f, d.hi);
  llvm::Value* residual = m.fma(m.neg(s), d.lo, m.fma(m.neg(s), d.hi, f));  // inner FMA exact
  llvm::Value* s_lo = m.mul(residual, m.fma(s, m.real(-0.5), m.real(0.5)));

  DoubleDouble s2 = m.two_product(s, s);
  DoubleDouble s3 = m.two_product(s2.hi, s);
  llvm::Value* s3_lo = m.fma(s2.lo, s, s3.lo);
  DoubleDouble cubic = m.two_product(s3.hi, m.real(kTwoThirdsHigh));
  llvm::Value* cubic_lo = m.fma(s3_lo, m.real(kTwoThirdsHigh),
                                m.fma(s3.hi, m.real(kTwoThirdsLow), cubic.lo));
  cubic_lo = m.fma(m.add(s2.hi, s2.hi), s_lo, cubic_lo);  // 2 s^2 s_lo
  llvm::Value* tail = m.mul(m.mul(s3.hi, s2.hi),
                            m.polynomial(s2.hi, {0x1.99999ap-2, 0x1.24924ap-2, 0x1.c71c72p-3,
                                                 0x1.745d18p-3, 0x1.3b13b2p-3, 0x1.111112p-3}));

  DoubleDouble k_ln2_low = m.two_product(k, m.real(kLn2Low));
  DoubleDouble first = m.fast_two_sum(m.mul(k, m.real(kLn2High)), m.add(s, s));
  DoubleDouble second = m.fast_two_sum(first.hi, cubic.hi);
  DoubleDouble third = m.fast_two_sum(second.hi, k_ln2_low.hi);
  llvm::Value* lo = m.add(m.add(m.add(s_lo, s_lo), cubic_lo), tail);
  lo = m.add(lo, m.add(k_ln2_low.lo, m.add(first.lo, m.add(second.lo, third.lo))));
  return m.fast_two_sum(third.hi, lo);
}

}  // namespace

// The shared part (pow.cpp): y log|x| as a pair, exp of it, the special cases.
llvm::Value* pow(MathBuilder& m, llvm::Value* x, llvm::Value* y) {
  return vector_math::pow_from_log(m, x, y, log_pair(m, m.abs(x)), [&](DoubleDouble exponent) {
    return scale(m, exp_parts(m, exponent.hi, exponent.lo, kExpLowest));
  });
}

}  // namespace tensorjit::codegen::vector_math::f32
