// erf and gelu (erf form) in f64, after fdlibm's s_erf.c (Sun Microsystems, 1993), made
// branch-free: the four intervals of |x| share one rational evaluation whose coefficients and
// argument are selected per lane, so every lane runs the same instructions.
//   I1 |x| < 0.84375:         erf = x + x P(z)/Q(z),  z = x^2       (fdlibm: |error| < 2^-57.9)
//   I2 |x| < 1.25:            erf = erx + P(s)/Q(s),  s = |x| - 1   (2^-59.06)
//   I3 |x| < 1/0.35, I4 < 28: erfc = exp(-x^2 - 0.5625 + R(u)/S(u)) / |x|, u = 1/x^2 (2^-62.57,
//                             2^-61.52); erf = 1 - erfc, and erf = 1 from |x| >= 6.
// x^2 enters exp as a double-double (FMA product), so the exponent's rounding costs nothing.
// Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/functions.hpp"

#include <array>

#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen::vector_math {
namespace {

constexpr int kNumeratorTerms = 8;    // degree 7
constexpr int kDenominatorTerms = 8;  // 1 + degree 1..8

// One interval's rational P/Q, zero-padded to the common degrees (fdlibm's names in comments).
struct Rational {
  std::array<double, kNumeratorTerms> p;
  std::array<double, kDenominatorTerms> q;  // q[i] multiplies u^(i+1)
};

constexpr Rational kInterval1 = {  // pp0..pp4, qq1..qq5
    {1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
     -5.77027029648944159157e-03, -2.37630166566501626084e-05, 0, 0, 0},
    {3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
     1.32494738004321644526e-04, -3.96022827877536812320e-06, 0, 0, 0}};
constexpr Rational kInterval2 = {  // pa0..pa6, qa1..qa6
    {-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
     3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
     -2.16637559486879084300e-03, 0},
    {1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
     1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02, 0, 0}};
constexpr Rational kInterval3 = {  // ra0..ra7, sa1..sa8
    {-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
     -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
     -8.12874355063065934246e+01, -9.81432934416914548592e+00},
    {1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
     6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
     6.57024977031928170135e+00, -6.04244152148580987438e-02}};
constexpr Rational kInterval4 = {  // rb0..rb6, sb1..sb7
    {-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
     -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
     -4.83519191608651397019e+02, 0},
    {3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
     3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
     -2.24409524465858183362e+01, 0}};
constexpr double kErx = 8.45062911510467529297e-01;  // erf(1) rounded to 24 bits (fdlibm)

// erfc = erfc_mantissa 2^erfc_exponent, the power of two applied by the caller so that a subnormal
// result rounds once (erfc(26.55) is subnormal).
struct ErfParts {
  llvm::Value* erf;             // erf(t)
  llvm::Value* erfc_mantissa;   // 1 - erf(t), accurate relative to itself, unscaled
  llvm::Value* erfc_exponent;   // i64
};

// erf and erfc of t + t_lo, t = |x| >= 0 (NaN gives NaN in both). t_lo (a rounding error carried
// by the caller) only enters exp's argument, -(t + t_lo)^2, where an error in t is amplified by
// 2 t^2 relative; elsewhere it would change the result by less than half an ulp.
ErfParts erf_parts(MathBuilder& m, llvm::Value* t, llvm::Value* t_lo) {
  llvm::Value* in1 = m.less(t, m.real(0.84375));
  llvm::Value* in2 = m.less(t, m.real(1.25));
  llvm::Value* in3 = m.less(t, m.real(1.0 / 0.35));
  auto pick = [&](double c1, double c2, double c3, double c4) {
    if (c1 == c2 && c2 == c3 && c3 == c4) return m.real(c1);
    return m.select(in1, m.real(c1), m.select(in2, m.real(c2), m.select(in3, m.real(c3),
                                                                        m.real(c4))));
  };
  // Capped so that 1/t^2 stays normal and t^2 finite; erf is 1 and erfc 0 well before.
  llvm::Value* capped = m.select(m.greater(t, m.real(30.0)), m.real(30.0), t);
  llvm::Value* square = m.mul(capped, capped);
  llvm::Value* u = m.select(in1, square,
                            m.select(in2, m.sub(capped, m.real(1.0)), m.div(m.real(1.0), square)));
  llvm::Value* numerator = pick(kInterval1.p[kNumeratorTerms - 1], kInterval2.p[kNumeratorTerms - 1],
                                kInterval3.p[kNumeratorTerms - 1], kInterval4.p[kNumeratorTerms - 1]);
  for (int i = kNumeratorTerms - 2; i >= 0; --i) {
    numerator = m.fma(numerator, u, pick(kInterval1.p[i], kInterval2.p[i], kInterval3.p[i],
                                         kInterval4.p[i]));
  }
  llvm::Value* denominator = pick(kInterval1.q[kDenominatorTerms - 1],
                                  kInterval2.q[kDenominatorTerms - 1],
                                  kInterval3.q[kDenominatorTerms - 1],
                                  kInterval4.q[kDenominatorTerms - 1]);
  for (int i = kDenominatorTerms - 2; i >= 0; --i) {
    denominator = m.fma(denominator, u, pick(kInterval1.q[i], kInterval2.q[i], kInterval3.q[i],
                                             kInterval4.q[i]));
  }
  denominator = m.fma(denominator, u, m.real(1.0));
  llvm::Value* y = m.div(numerator, denominator);

  // I1: erf = t + t y; erfc = 1 - erf below 1/4, else 0.5 - ((t - 0.5) + t y) (fdlibm erfc).
  llvm::Value* erf1 = m.fma(t, y, t);
  llvm::Value* erfc1 = m.select(m.less(t, m.real(0.25)), m.sub(m.real(1.0), erf1),
                                m.sub(m.real(0.5), m.fma(t, y, m.sub(t, m.real(0.5)))));
  // I2: erf = erx + y; erfc = (1 - erx) - y.
  llvm::Value* erf2 = m.add(m.real(kErx), y);
  llvm::Value* erfc2 = m.sub(m.real(1.0 - kErx), y);
  // I3, I4: erfc = exp(-t^2 + (y - 0.5625)) / t, -t^2 as a double-double.
  DoubleDouble minus_square = m.two_product(m.neg(capped), capped);
  DoubleDouble exponent = m.two_sum(minus_square.hi, m.sub(y, m.real(0.5625)));
  t_lo = m.select(m.equal(capped, t), t_lo, m.real(0.0));
  llvm::Value* square_lo = m.fma(m.mul(m.real(-2.0), capped), t_lo, minus_square.lo);
  llvm::Value* tail = m.add(exponent.lo, square_lo);
  // Clamped at -1000 rather than exp's -746: gelu multiplies erfc by x before the power of two.
  ExpParts e = exp_parts(m, {exponent.hi, tail}, -1000.0);
  llvm::Value* erfc3 = m.div(e.p, capped);
  llvm::Value* erf3 = m.select(m.greater_equal(t, m.real(6.0)), m.real(1.0),
                               m.sub(m.real(1.0), m.scale_by_power_of_two(erfc3, e.k)));
  llvm::Value* erf = m.select(in1, erf1, m.select(in2, erf2, erf3));
  llvm::Value* erfc = m.select(in1, erfc1, m.select(in2, erfc2, erfc3));
  // Beyond 28 (and so beyond the cap) erfc(t) < 2^-1100: exactly 0 for any caller.
  erfc = m.select(m.greater(t, m.real(28.0)), m.real(0.0), erfc);
  llvm::Value* exponent_of_erfc =
      m.ir().CreateSelect(m.ir().CreateOr(in1, in2), m.integer(0), e.k);
  // NaN: every comparison is false and would pick erf3 = 1 beyond the cap; give NaN back.
  erf = m.select(m.is_nan(t), t, erf);
  erfc = m.select(m.is_nan(t), t, erfc);
  return {erf, erfc, exponent_of_erfc};
}

}  // namespace

llvm::Value* erf(MathBuilder& m, llvm::Value* x) {
  return m.copysign(erf_parts(m, m.abs(x), m.real(0.0)).erf, x);
}

// gelu(x) = (x * 0.5) (1 + erf(x / sqrt 2)): for x < 0, 1 + erf(x / sqrt 2) = erfc(|x| / sqrt 2),
// taken from erf_parts without cancellation. The scaling uses ir/scalar_ops.hpp's constant (rounded
// to the dtype); its product with x is exact as a double-double, whose low part reaches erfc's
// exponent (for x < -5 an error of one rounding there would cost x^2 ulp).
llvm::Value* gelu(MathBuilder& m, llvm::Value* x) {
  DoubleDouble u = m.two_product(x, m.formula_constant(ir::kInverseSqrt2<double>));
  llvm::Value* u_negative = m.less(u.hi, m.real(0.0));
  llvm::Value* t_lo = m.select(u_negative, m.neg(u.lo), u.lo);
  // u.lo is NaN when x is infinite; erf_parts caps t there and t_lo must stay finite.
  t_lo = m.select(m.less(m.abs(u.hi), m.real(1e300)), t_lo, m.real(0.0));
  ErfParts parts = erf_parts(m, m.abs(u.hi), t_lo);
  llvm::Value* negative = m.less(x, m.real(0.0));
  llvm::Value* factor = m.select(negative, parts.erfc_mantissa, m.add(m.real(1.0), parts.erf));
  llvm::Value* exponent = m.ir().CreateSelect(negative, parts.erfc_exponent, m.integer(0));
  return m.scale_by_power_of_two(m.mul(m.mul(x, m.real(0.5)), factor), exponent);
}

}  // namespace tensorjit::codegen::vector_math
