// log, log2, log1p in f64, after fdlibm's e_log.c / s_log1p.c (Sun Microsystems, 1993).
//
// Range reduction: x = 2^k m with m in [sqrt(1/2), sqrt(2)) read from the bits (subnormal x are
// first scaled by 2^54), f = m - 1 exact, s = f / (2 + f), so log(m) = 2 atanh(s) and |s| < 0.1716.
// Polynomial: fdlibm's minimax R(z) = Lg1 z + ... + Lg7 z^7 in z = s^2 (|error| < 2^-58.45), used as
// log(m) = f - (hfsq - s (hfsq + R)) with hfsq = f^2 / 2, which fdlibm proves below 1 ulp.
// Reconstruction: k ln2 with fdlibm's ln2_hi (k * ln2_hi exact for |k| < 2000) and ln2_lo.
// Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/functions.hpp"

#include <limits>

namespace tensorjit::codegen::vector_math {
namespace {

// fdlibm e_log.c: ln2_hi has 32 trailing zero bits.
constexpr double kLn2High = 6.93147180369123816490e-01;  // 0x3fe62e42 fee00000
constexpr double kLn2Low = 1.90821492927058770002e-10;   // 0x3dea39ef 35793c76
constexpr double kSqrtHalf = 0x1.6a09e667f3bcdp-1;
constexpr double kSmallestNormal = 0x1p-1022;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Reduced {
  llvm::Value* k;  // double
  llvm::Value* f;  // m - 1, in [sqrt(1/2) - 1, sqrt(2) - 1)
};

// x = 2^k (1 + f) for finite x > 0 (others give unspecified k and f).
Reduced reduce(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  llvm::Value* subnormal = m.less(x, m.real(kSmallestNormal));
  llvm::Value* scaled = m.select(subnormal, m.mul(x, m.real(0x1p54)), x);
  llvm::Value* bits = m.to_bits(scaled);
  llvm::Value* offset = b.CreateSub(bits, m.to_bits(m.real(kSqrtHalf)));
  llvm::Value* exponent = b.CreateAShr(offset, 52);
  llvm::Value* mantissa = m.from_bits(b.CreateSub(bits, b.CreateShl(exponent, 52)));
  llvm::Value* k = b.CreateSub(exponent, b.CreateSelect(subnormal, m.integer(54), m.integer(0)));
  return {b.CreateSIToFP(k, m.real_type()), m.sub(mantissa, m.real(1.0))};
}

struct Kernel {
  llvm::Value* s;
  llvm::Value* hfsq;
  llvm::Value* r;  // fdlibm's R(s^2)
};

Kernel kernel(MathBuilder& m, llvm::Value* f) {
  llvm::Value* s = m.div(f, m.add(m.real(2.0), f));
  llvm::Value* z = m.mul(s, s);
  // fdlibm e_log.c Lg1..Lg7.
  llvm::Value* r = m.mul(z, m.polynomial(z, {6.666666666666735130e-01, 3.999999999940941908e-01,
                                             2.857142874366239149e-01, 2.222219843214978396e-01,
                                             1.818357216161805012e-01, 1.531383769920937332e-01,
                                             1.479819860511658591e-01}));
  llvm::Value* hfsq = m.mul(m.real(0.5), m.mul(f, f));
  return {s, hfsq, r};
}

// log's special values: NaN and +inf give themselves, +-0 gives -inf, x < 0 gives NaN.
llvm::Value* special_cases(MathBuilder& m, llvm::Value* x, llvm::Value* result) {
  result = m.select(m.equal(x, m.real(0.0)), m.real(-kInfinity), result);
  result = m.select(m.less(x, m.real(0.0)), m.real(std::numeric_limits<double>::quiet_NaN()),
                    result);
  llvm::Value* itself = m.ir().CreateOr(m.is_nan(x), m.equal(x, m.real(kInfinity)));
  return m.select(itself, x, result);
}

// k ln2 + log(1 + f) + c, fdlibm's final expression, with c a small correction (log1p).
llvm::Value* assemble(MathBuilder& m, const Reduced& reduced, const Kernel& k, llvm::Value* c) {
  llvm::Value* low = m.fma(reduced.k, m.real(kLn2Low), c);
  llvm::Value* inner = m.sub(k.hfsq, m.fma(k.s, m.add(k.hfsq, k.r), low));
  return m.fma(reduced.k, m.real(kLn2High), m.neg(m.sub(inner, reduced.f)));
}

}  // namespace

llvm::Value* log(MathBuilder& m, llvm::Value* x) {
  Reduced reduced = reduce(m, x);
  Kernel k = kernel(m, reduced.f);
  return special_cases(m, x, assemble(m, reduced, k, m.real(0.0)));
}

// log2(x) = k + log(m) / ln2, with log(m) = hi + lo (hi = f - hfsq, lo its rounding error plus
// s (hfsq + R)) multiplied by 1/ln2 as a double-double, and k added by Fast2Sum (|k| >= 1 exceeds
// the fraction, or k == 0). Exact powers of two give k exactly.
llvm::Value* log2(MathBuilder& m, llvm::Value* x) {
  constexpr double kInverseLn2High = 0x1.71547652b82fep0;
  constexpr double kInverseLn2Low = 0x1.777d0ffda0d24p-56;
  Reduced reduced = reduce(m, x);
  Kernel k = kernel(m, reduced.f);
  llvm::Value* hi = m.sub(reduced.f, k.hfsq);
  llvm::Value* lo = m.fma(k.s, m.add(k.hfsq, k.r), m.sub(m.sub(reduced.f, hi), k.hfsq));
  DoubleDouble scaled = m.two_product(hi, m.real(kInverseLn2High));
  llvm::Value* scaled_lo =
      m.add(scaled.lo, m.fma(lo, m.real(kInverseLn2High), m.mul(hi, m.real(kInverseLn2Low))));
  DoubleDouble sum = m.fast_two_sum(reduced.k, scaled.hi);
  return special_cases(m, x, m.add(sum.hi, m.add(sum.lo, scaled_lo)));
}

// log1p(x) = log(u) + c / u with u = 1 + x rounded and c its exact rounding error (TwoSum), as in
// fdlibm s_log1p.c. Zeros (and so the sign of -0) are returned unchanged; x = -1 gives -inf,
// x < -1 NaN, +inf and NaN themselves.
llvm::Value* log1p(MathBuilder& m, llvm::Value* x) {
  DoubleDouble u = m.two_sum(m.real(1.0), x);
  Reduced reduced = reduce(m, u.hi);
  Kernel k = kernel(m, reduced.f);
  llvm::Value* result = assemble(m, reduced, k, m.div(u.lo, u.hi));
  result = special_cases(m, u.hi, result);
  result = m.select(m.equal(x, m.real(kInfinity)), x, result);
  result = m.select(m.is_nan(x), x, result);
  return m.select(m.equal(x, m.real(0.0)), x, result);
}

// log(x) = k ln2 + 2 atanh(s) with s = (m - 1) / (m + 1) carried as a double-double: 2 s and the
// cubic term (2/3) s^3 are summed without rounding (TwoSum), the terms from s^5 on (at most 2^-12.5
// of the result) in double, by the Taylor series 2/(2n+1) s^(2n+1) up to s^25 (truncation below
// 2^-66 relative for |s| < 0.1716). k ln2 uses fdlibm's ln2_hi (exact product) and ln2_lo.
DoubleDouble log_double_double(MathBuilder& m, llvm::Value* x) {
  Reduced reduced = reduce(m, x);
  llvm::Value* mantissa = m.add(reduced.f, m.real(1.0));  // exact: m itself
  DoubleDouble denominator = m.two_sum(mantissa, m.real(1.0));
  llvm::Value* s = m.div(reduced.f, denominator.hi);
  // s_lo = (f - s (m + 1)) / (m + 1), with the product's error and the denominator's low part.
  llvm::Value* residual = m.fma(m.neg(s), denominator.hi, reduced.f);
  residual = m.fma(m.neg(s), denominator.lo, residual);
  llvm::Value* s_lo = m.div(residual, denominator.hi);
  DoubleDouble s2 = m.two_product(s, s);
  DoubleDouble s3 = m.two_product(s2.hi, s);
  llvm::Value* s3_lo = m.fma(s2.lo, s, s3.lo);
  // (2/3) s^3 as hi + lo: 2/3 = c_hi + c_lo.
  constexpr double kTwoThirdsHigh = 0x1.5555555555555p-1;
  constexpr double kTwoThirdsLow = 0x1.5555555555555p-55;
  DoubleDouble cubic = m.two_product(s3.hi, m.real(kTwoThirdsHigh));
  llvm::Value* cubic_lo = m.fma(s3_lo, m.real(kTwoThirdsHigh),
                                m.fma(s3.hi, m.real(kTwoThirdsLow), cubic.lo));
  // 2 s^2 s_lo: the cubic term's share of s_lo.
  cubic_lo = m.fma(m.mul(m.real(2.0), s2.hi), s_lo, cubic_lo);
  llvm::Value* tail =
      m.mul(m.mul(s3.hi, s2.hi),
            m.polynomial(s2.hi, {0x1.999999999999ap-2, 0x1.2492492492492p-2, 0x1.c71c71c71c71cp-3,
                                 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3, 0x1.1111111111111p-3,
                                 0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4, 0x1.8618618618618p-4,
                                 0x1.642c8590b2164p-4, 0x1.47ae147ae147bp-4}));
  DoubleDouble k_ln2 = m.two_product(reduced.k, m.real(kLn2Low));
  DoubleDouble first = m.two_sum(m.mul(reduced.k, m.real(kLn2High)), m.mul(m.real(2.0), s));
  DoubleDouble second = m.two_sum(first.hi, cubic.hi);
  llvm::Value* lo = m.add(m.mul(m.real(2.0), s_lo), cubic_lo);
  lo = m.add(lo, tail);
  lo = m.add(lo, k_ln2.lo);
  lo = m.add(lo, m.add(first.lo, second.lo));
  DoubleDouble third = m.two_sum(second.hi, k_ln2.hi);
  return m.fast_two_sum(third.hi, m.add(third.lo, lo));
}

}  // namespace tensorjit::codegen::vector_math
