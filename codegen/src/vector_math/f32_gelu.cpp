// gelu (erf form) in native f32: gelu(x) = (x/2)(1 + erf(u)), u = x c with c the ops.def constant
// 1/sqrt 2 rounded to f32 (ir/scalar_ops.hpp), u = u_hi + u_lo exactly (FMA product pair).
// Both forms below run in every lane; t = |u| picks one.
//
// t <= 1/2: 1 + erf(u) = (1 + u_hi) + (u_hi p(u_hi^2) + u_lo (1 + p)), erf(u) = u + u p(u^2), p of
//   degree 4 (2^-30.1 relative to 1 - erf), 1 + u_hi an exact Fast2Sum pair; the bracket is at most
//   a twentieth of the sum (>= 0.48), so its roundings stay below 0.03 ulp, and the result
//   x (1 + u_hi)/2 + x (bracket/2) is rounded once by the last FMA.
// t > 1/2: erfc(t) = y exp(-t^2 + P0 + Q(y)), y = 1 / (1 + t) in [0.087, 0.667] (the form of
//   Numerical Recipes' erfcc, there with 2 / (2 + t), whose larger exponent range rounds worse),
//   P0 = -0.28125 and Q a near-minimax fit of degree 11 in y - 0.3125 (absolute error 2^-30.1,
//   |Q| <= 0.21, Horner's roundings at most about 2^-26.5 absolute), so the relative error of
//   erfc is an absolute error of its exponent:
//     - 1 + t is a Fast2Sum pair (with u_lo), y = 1 / (1 + t) one division and y_lo its exact
//       residual's share, carried into the exponent as y_lo (1/y + Q'(y)) (Q' linear, within
//       0.031);
//     - t^2 is an FMA product pair (with 2 t u_lo), P0 - t^2 a Fast2Sum pair, and Q joins the low
//       part (both Fast2Sums are exact although the constant may be the smaller term: it is a
//       multiple of 2^0 or 2^-5, the other term's ulp at most 2^-19 or 2^-17: Dekker's condition
//       on the exponents);
//     - exp of the pair as exp's parts (1 + p) 2^k (f32_exp.cpp), 2^k applied last.
//   v = (x/2) erfc(t) = (x/2) y (1 + p) 2^k, x/2 times y an FMA product pair, rounded once
//   (twice for subnormal results): for x < 0 gelu = v, with no cancellation down to the underflow
//   near x = -14.5; for x > 0 gelu = x - v, |v| <= 0.24 x.
// t above 10.5 (x beyond +-14.8) gives x for x > 0 and x 0 (-0, NaN for -inf) for x < 0; NaN
// gives NaN. Coefficients: scripts/vector_math_f32_fit.py. Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kSmallLimit = 0.5;
constexpr double kCap = 10.5;
constexpr double kExponentOffset = -0.28125;  // P0
// y - 0.3125 is exact for y in [0.156, 0.667] and rounds by at most 2^-27 below.
constexpr double kExpansionPoint = 0.3125;
// Q'(y) within 0.031 of kSlope0 + kSlope1 y.
constexpr double kSlope0 = 0x1.1c2c5ep+0;
constexpr double kSlope1 = -0x1.19a36ap+0;
// The exponent -t^2 + P0 + Q(y) stays above -111 for t <= 10.5.
constexpr double kLowest = -120.0;

}  // namespace

llvm::Value* gelu(MathBuilder& m, llvm::Value* x) {
  DoubleDouble u = m.two_product(x, m.formula_constant(ir::kInverseSqrt2<double>));
  llvm::Value* t = m.abs(u.hi);

  // t <= 1/2.
  DoubleDouble one_plus_u = m.fast_two_sum(m.real(1.0), u.hi);
  llvm::Value* p = m.polynomial(m.mul(u.hi, u.hi), {0x1.06eba6p-3, -0x1.8127p-2, 0x1.ce19a6p-4,
                                                     -0x1.b5708ep-6, 0x1.2e60ep-8});
  llvm::Value* bracket = m.fma(u.hi, p, m.add(m.fma(u.lo, p, u.lo), one_plus_u.lo));
  llvm::Value* small = m.fma(x, m.mul(one_plus_u.hi, m.real(0.5)), m.mul(x, m.mul(bracket, m.real(0.5))));

  // t > 1/2: erfc(t) = y exp(-t^2 + P0 + Q(y)).
  llvm::Value* negative = m.less(u.hi, m.real(0.0));
  llvm::Value* beyond = m.greater(t, m.real(kCap));
  llvm::Value* capped = m.select(beyond, m.real(kCap), t);
  llvm::Value* capped_lo = m.select(beyond, m.real(0.0), m.select(negative, m.neg(u.lo), u.lo));
  DoubleDouble d = m.fast_two_sum(m.real(1.0), capped);
  llvm::Value* y = m.div(m.real(1.0), d.hi);
  llvm::Value* residual = m.fma(m.neg(y), m.add(d.lo, capped_lo),
                                m.fma(m.neg(y), d.hi, m.real(1.0)));  // inner FMA exact
  llvm::Value* y_lo = m.mul(residual, y);
  llvm::Value* q = m.polynomial(
      m.sub(y, m.real(kExpansionPoint)),
      {-0x1.476326p-10, 0x1.93d9a4p-1, -0x1.338362p-1, -0x1.013dd8p-2, 0x1.ae9166p-1,
       -0x1.8c7116p-2, -0x1.1f0b56p+0, 0x1.1ce0fep+1, -0x1.13b26p-1, -0x1.05977cp+2,
       0x1.aa87aep+2, -0x1.ba0a2p+1});
  DoubleDouble square = m.two_product(capped, capped);
  llvm::Value* square_lo = m.fma(m.add(capped, capped), capped_lo, square.lo);
  DoubleDouble head = m.fast_two_sum(m.real(kExponentOffset), m.neg(square.hi));
  llvm::Value* y_correction =
      m.mul(y_lo, m.add(d.hi, m.fma(y, m.real(kSlope1), m.real(kSlope0))));
  llvm::Value* low = m.add(m.sub(head.lo, square_lo), m.add(q, y_correction));
  DoubleDouble exponent = m.fast_two_sum(head.hi, low);  // |head.hi| >= 0.53 > |low|
  ExpParts e = exp_parts(m, exponent.hi, exponent.lo, kLowest, true);

  DoubleDouble half_x_y = m.two_product(m.mul(x, m.real(0.5)), y);
  // (0.5 x y)(1 + p) 2^k: the product pair times exp's 1 + p, rounded once before the scaling.
  llvm::Value* product =
      m.add(half_x_y.hi, m.fma(half_x_y.hi, e.p, m.fma(half_x_y.lo, e.p, half_x_y.lo)));
  llvm::Value* v = m.scale_by_power_of_two(product, e.k, e.k_real);
  llvm::Value* large = m.select(negative, v, m.sub(x, v));
  llvm::Value* saturated = m.select(m.greater(x, m.real(0.0)), x, m.mul(x, m.real(0.0)));
  large = m.select(beyond, saturated, large);
  return m.select(m.greater(t, m.real(kSmallLimit)), large, small);
}

}  // namespace tensorjit::codegen::vector_math::f32
