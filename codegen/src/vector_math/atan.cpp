// atan and atan2 in f64, after fdlibm's s_atan.c and e_atan2.c (Sun Microsystems, 1993).
//
// atan: |x| is reduced to t with |t| <= 7/16 in one of five intervals, atan(|x|) = c + atan(t):
//   [0, 7/16)        c = 0          t = |x|
//   [7/16, 11/16)    c = atan(1/2)  t = (2|x| - 1) / (2 + |x|)
//   [11/16, 19/16)   c = atan(1)    t = (|x| - 1) / (|x| + 1)
//   [19/16, 39/16)   c = atan(3/2)  t = (|x| - 3/2) / (1 + 3/2 |x|)
//   [39/16, inf]     c = pi/2       t = -1 / |x|
// (each numerator is exact, Sterbenz), with c as fdlibm's atanhi + atanlo, and atan(t) =
// t - t z p(z), z = t^2, fdlibm's degree-10 aT polynomial split into odd and even halves (error
// below 2^-61 on |t| <= 7/16). The interval is chosen per lane by selects and the one division
// takes the selected numerator and denominator, so every lane runs the same instructions. The
// value is c_hi + (t - t z p(z) + c_lo), rounded last at that addition; the sign is x's.
//
// atan2(y, x): t = min(|x|, |y|) / max(|x|, |y|) in [0, 1] (exactly 1 where both are infinite,
// 0 where both are zero, so no 0/0 or inf/inf), then atan(t) as above as a pair, and the angle is
// base + sign * atan(t) with (base, sign) = (0, +) where |y| <= |x| and x >= 0, (pi/2, -) where
// |y| > |x| and x >= 0, (pi, -) where |y| <= |x| and x < 0, (pi/2, +) where |y| > |x| and x < 0
// ("x < 0" is x's sign bit, so x = -0 counts), summed by TwoSum with the constants' low parts and
// rounded once. y's sign is then copied onto it, and NaN in either operand gives x + y. These are
// C99 Annex F's special values: atan2(+-0, -0) = +-pi, atan2(+-inf, -inf) = +-3pi/4, and so on.
// Measured errors: docs/vector_math.md.
#include <cmath>

#include "codegen/src/vector_math/functions.hpp"

namespace tensorjit::codegen::vector_math {
namespace {

// fdlibm s_atan.c: atan(1/2), atan(1), atan(3/2), atan(inf) as hi + lo.
constexpr double kAtanHigh[] = {4.63647609000806093515e-01, 7.85398163397448278999e-01,
                                9.82793723247329054082e-01, 1.57079632679489655800e+00};
constexpr double kAtanLow[] = {2.26987774529616870924e-17, 3.06161699786838301793e-17,
                               1.39033110312309984516e-17, 6.12323399573676603587e-17};
// pi as hi + lo (e_atan2.c's pi and pi_lo).
constexpr double kPiHigh = 3.14159265358979311600e+00;
constexpr double kPiLow = 1.2246467991473531772e-16;

// atan(a) for a >= 0 (or NaN) as hi + lo: hi is c_hi (t where c = 0), lo the rest, |lo| < |hi|/2.
DoubleDouble atan_of_magnitude(MathBuilder& m, llvm::Value* a) {
  llvm::Value* one = m.real(1.0);
  llvm::Value* from_half = m.greater_equal(a, m.real(7.0 / 16));
  llvm::Value* from_one = m.greater_equal(a, m.real(11.0 / 16));
  llvm::Value* from_three_halves = m.greater_equal(a, m.real(19.0 / 16));
  llvm::Value* from_infinity = m.greater_equal(a, m.real(39.0 / 16));
  auto by_interval = [&](llvm::Value* none, llvm::Value* half, llvm::Value* one_value,
                         llvm::Value* three_halves, llvm::Value* infinity) {
    llvm::Value* value = m.select(from_half, half, none);
    value = m.select(from_one, one_value, value);
    value = m.select(from_three_halves, three_halves, value);
    return m.select(from_infinity, infinity, value);
  };
  llvm::Value* numerator =
      by_interval(a, m.sub(m.add(a, a), one), m.sub(a, one), m.sub(a, m.real(1.5)), m.real(-1.0));
  llvm::Value* denominator = by_interval(one, m.add(m.real(2.0), a), m.add(a, one),
                                         m.fma(a, m.real(1.5), one), a);
  llvm::Value* t = m.div(numerator, denominator);  // a / 1 below 7/16: exact

  llvm::Value* z = m.mul(t, t);
  llvm::Value* w = m.mul(z, z);
  // aT[0..10] of s_atan.c, odd and even indices as two polynomials in w.
  llvm::Value* odd = m.mul(z, m.polynomial(w, {3.33333333333329318027e-01, 1.42857142725034663711e-01,
                                               9.09088713343650656196e-02, 6.66107313738753120669e-02,
                                               4.97687799461593236017e-02, 1.62858201153657823623e-02}));
  llvm::Value* even = m.mul(w, m.polynomial(w, {-1.99999999998764832476e-01, -1.11111104054623557880e-01,
                                                -7.69187620504482999495e-02, -5.83357013379057348645e-02,
                                                -3.65315727442169155270e-02}));
  llvm::Value* t_times_p = m.mul(t, m.add(odd, even));

  llvm::Value* zero = m.real(0.0);
  llvm::Value* c_high = by_interval(zero, m.real(kAtanHigh[0]), m.real(kAtanHigh[1]),
                                    m.real(kAtanHigh[2]), m.real(kAtanHigh[3]));
  llvm::Value* c_low = by_interval(zero, m.real(kAtanLow[0]), m.real(kAtanLow[1]),
                                   m.real(kAtanLow[2]), m.real(kAtanLow[3]));
  // Below 7/16: hi = t, lo = -t z p(z) (s_atan.c's x - x(s1 + s2)); above: hi = c_hi,
  // lo = t - (t z p(z) - c_lo) (its atanhi - ((x(s1 + s2) - atanlo) - x)).
  llvm::Value* small_low = m.neg(t_times_p);
  llvm::Value* large_low = m.sub(t, m.sub(t_times_p, c_low));
  return {m.select(from_half, c_high, t), m.select(from_half, large_low, small_low)};
}

}  // namespace

llvm::Value* atan(MathBuilder& m, llvm::Value* x) {
  DoubleDouble value = atan_of_magnitude(m, m.abs(x));
  // NaN stays NaN through the selects and the sum; copysign keeps +-0 (t = 0 gives +0).
  return m.copysign(m.add(value.hi, value.lo), x);
}

llvm::Value* atan2(MathBuilder& m, llvm::Value* y, llvm::Value* x) {
  auto& b = m.ir();
  llvm::Value* abs_x = m.abs(x);
  llvm::Value* abs_y = m.abs(y);
  llvm::Value* one = m.real(1.0);
  llvm::Value* infinity = m.real(HUGE_VAL);
  llvm::Value* swapped = m.greater(abs_y, abs_x);
  llvm::Value* numerator = m.select(swapped, abs_x, abs_y);
  llvm::Value* denominator = m.select(swapped, abs_y, abs_x);
  // inf / inf -> 1 / 1 (pi/4); 0 / 0 -> 0 / 1 (0).
  llvm::Value* both_infinite = m.equal(numerator, infinity);
  numerator = m.select(both_infinite, one, numerator);
  denominator = m.select(b.CreateOr(both_infinite, m.equal(denominator, m.real(0.0))), one,
                         denominator);
  DoubleDouble angle = atan_of_magnitude(m, m.div(numerator, denominator));

  llvm::Value* x_negative = b.CreateICmpSLT(m.to_bits(x), m.integer(0));
  llvm::Value* zero = m.real(0.0);
  llvm::Value* half_pi_high = m.real(kAtanHigh[3]);
  llvm::Value* half_pi_low = m.real(kAtanLow[3]);
  llvm::Value* base_high =
      m.select(swapped, half_pi_high, m.select(x_negative, m.real(kPiHigh), zero));
  llvm::Value* base_low =
      m.select(swapped, half_pi_low, m.select(x_negative, m.real(kPiLow), zero));
  // Subtracted where exactly one of "swapped" and "x negative" holds.
  llvm::Value* subtract = b.CreateXor(swapped, x_negative);
  llvm::Value* high = m.select(subtract, m.neg(angle.hi), angle.hi);
  llvm::Value* low = m.select(subtract, m.neg(angle.lo), angle.lo);
  DoubleDouble sum = m.two_sum(base_high, high);
  llvm::Value* result = m.add(sum.hi, m.add(sum.lo, m.add(base_low, low)));
  result = m.copysign(result, y);
  return m.select(b.CreateOr(m.is_nan(x), m.is_nan(y)), m.add(x, y), result);
}

}  // namespace tensorjit::codegen::vector_math
