// gelu (erf form) in native f32: gelu(x) = (x/2)(1 + erf(u)), u = x c with c the ops.def constant
// 1/sqrt 2 rounded to f32 (ir/scalar_ops.hpp).
//
// On x in [-4.25, 3.75): the table path of f32_activation_pieces.hpp, 16 pieces of width 1/2 and
// degree 8 (scripts/vector_math_f32_fit.py, gelu_pieces: 2^-27.0 relative at worst, near -4). The
// table reaches far below 0 because a transformer's pre-activations do: in all-MiniLM-L6-v2's FFN
// the median is -0.68 and 10% lie below -2.125, so a table ending there sent 54% of the 8-lane
// registers to the slow path, one ending at -4.125 about 5%. 16 pieces rather than 32 of degree 6:
// on AVX2 hosts a lookup in 16 entries is two vpermps and a blend, where 32 entries went through
// rows (f32_activation_pieces.hpp). Outside the table (and NaN), in a block entered only by
// registers with such a lane, the form for every x that follows (`everywhere`), about 90
// instructions per register.
//
// Everywhere: u = u_hi + u_lo exactly (FMA product pair). Both forms below run in every lane; t =
// |u| picks one.
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

#include "codegen/src/vector_math/f32_activation_pieces.hpp"

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

constexpr int kFirstPiece = -8;  // pieces of width 1/2: the table covers [-4.25, 3.75)

// scripts/vector_math_f32_fit.py, gelu_pieces(): {c0 hi, c0 lo, c1, ..., c6} per piece.
constexpr float kPieces[16][10] = {
    {-0x1.09ad7ep-13f, -0x1.7849c6p-39f, -0x1.080ebcp-11f, -0x1.eb28c4p-11f, -0x1.18a946p-10f, -0x1.b0adf8p-11f, -0x1.ca974ep-12f, -0x1.382368p-13f, -0x1.241bfep-16f, 0x1.ec9f0ep-17f},  // x = -4 +- 0.25, 2^-27.0
    {-0x1.aae056p-11f, -0x1.3d64cap-37f, -0x1.71da96p-9f, -0x1.251c18p-8f, -0x1.133c9p-8f, -0x1.45930ap-9f, -0x1.bcba26p-11f, -0x1.c7473ep-15f, 0x1.cc3404p-14f, 0x1.0f4cfp-14f},  // x = -3.5 +- 0.25, 2^-28.5
    {-0x1.09669ap-8f, -0x1.41a7fep-33f, -0x1.876f5ep-7f, -0x1.fc47a8p-7f, -0x1.6b0e54p-7f, -0x1.0a3c16p-8f, -0x1.0a8f94p-20f, 0x1.94dd8cp-11f, 0x1.855006p-12f, 0x1.3caeeap-14f},  // x = -3 +- 0.25, 2^-28.7
    {-0x1.fcb222p-7f, -0x1.c9322p-32f, -0x1.341c2cp-5f, -0x1.3121f8p-5f, -0x1.0d3bc8p-6f, 0x1.0768c4p-11f, 0x1.1790dep-8f, 0x1.fcf67cp-10f, 0x1.49d3ccp-13f, -0x1.f5f57ap-14f},  // x = -2.5 +- 0.25, 2^-29.4
    {-0x1.74bcfap-5f, -0x1.44c9cap-32f, -0x1.5d1c06p-4f, -0x1.ba4b42p-5f, -0x1.8561eap-23f, 0x1.26dbb6p-6f, 0x1.270db8p-7f, 0x1.e166c6p-12f, -0x1.313f14p-10f, -0x1.c4d256p-12f},  // x = -2 +- 0.25, 2^-29.7
    {-0x1.9a76a6p-4f, 0x1.6cbb96p-30f, -0x1.050e92p-3f, -0x1.094086p-6f, 0x1.d031fcp-5f, 0x1.27a698p-5f, 0x1.63db5ep-9f, -0x1.414aecp-8f, -0x1.5a4124p-10f, 0x1.f74484p-12f},  // x = -1.5 +- 0.25, 2^-29.4
    {-0x1.44ed0cp-3f, -0x1.18545ep-29f, -0x1.55429ap-4f, 0x1.ef8e5ap-4f, 0x1.ef8ebap-4f, 0x1.4a5f2cp-6f, -0x1.087c38p-6f, -0x1.8ca14cp-8f, 0x1.620d6cp-10f, 0x1.ddc9ep-11f},  // x = -1 +- 0.25, 2^-30.5
    {-0x1.3bf144p-3f, 0x1.293b12p-31f, 0x1.0f5eb8p-3f, 0x1.3b7356p-2f, 0x1.c2a4c2p-4f, -0x1.15e5cep-5f, -0x1.700122p-6f, 0x1.8ff8c8p-9f, 0x1.a29686p-9f, -0x1.78582ap-13f},  // x = -0.5 +- 0.25, 2^-33.4
    {-0x0p+0f, -0x0p+0f, 0x1p-1f, 0x1.988452p-2f, -0x1.10a4d2p-27f, -0x1.1056bcp-4f, 0x1.570baep-21f, 0x1.456854p-7f, -0x1.4381ap-17f, -0x1.a72e36p-11f},  // x = 0 +- 0.25, 2^-30.1
    {0x1.62075ep-2f, 0x1.293b12p-31f, 0x1.bc2852p-1f, 0x1.3b7356p-2f, -0x1.c2a4c4p-4f, -0x1.15e5dap-5f, 0x1.70028ap-6f, 0x1.90199p-9f, -0x1.a30bfap-9f, -0x1.8de6bp-13f},  // x = 0.5 +- 0.25, 2^-34.5
    {0x1.aec4bcp-1f, 0x1.dcf574p-26f, 0x1.15542ap+0f, 0x1.ef8e62p-4f, -0x1.ef91bcp-4f, 0x1.4a4e52p-6f, 0x1.09fdd6p-6f, -0x1.840814p-8f, -0x1.1f525p-9f, -0x1.3bc7dp-12f},  // x = 1 +- 0.25, 2^-29.8
    {0x1.665896p+0f, -0x1.693446p-26f, 0x1.20a1d2p+0f, -0x1.09408ap-6f, -0x1.d02dfap-5f, 0x1.27a7a4p-5f, -0x1.6be128p-9f, -0x1.425bfcp-8f, 0x1.ed06f6p-10f, 0x1.4a7394p-11f},  // x = 1.5 +- 0.25, 2^-31.7
    {0x1.f45a18p+0f, 0x1.75d9b2p-27f, 0x1.15d1cp+0f, -0x1.ba4b4ap-5f, 0x1.976b4p-19f, 0x1.26e3eep-6f, -0x1.2a0af2p-7f, 0x1.9eec48p-12f, 0x1.05dbbcp-9f, 0x1.3d3976p-13f},  // x = 2 +- 0.25, 2^-31.1
    {0x1.3e034ep+1f, -0x1.1724c8p-26f, 0x1.09a0e2p+0f, -0x1.3121eep-5f, 0x1.0d27dp-6f, 0x1.063172p-11f, -0x1.0d96e4p-8f, 0x1.0818eap-9f, -0x1.95e78ap-10f, -0x1.9c29fp-11f},  // x = 2.5 +- 0.25, 2^-30.8
    {0x1.7f7b4cp+1f, 0x1.655f2cp-24f, 0x1.030edep+0f, -0x1.fc47c6p-7f, 0x1.6b3d54p-7f, -0x1.0a1e24p-8f, -0x1.75ed26p-13f, 0x1.76f1e4p-11f, 0x1.4c67fp-10f, 0x1.390386p-11f},  // x = 3 +- 0.25, 2^-30.8
    {0x1.bfe552p+1f, -0x1.593d64p-29f, 0x1.00b8eep+0f, -0x1.251be4p-8f, 0x1.12e218p-8f, -0x1.45c766p-9f, 0x1.0b97p-10f, -0x1.197b56p-18f, -0x1.ba36b2p-10f, -0x1.9d0ba6p-12f},  // x = 3.5 +- 0.25, 2^-31.1
};

llvm::Value* everywhere(MathBuilder& m, llvm::Value* x) {
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

}  // namespace

llvm::Value* gelu(MathBuilder& m, llvm::Value* x) {
  return activation_from_pieces(m, x, {"gelu", kFirstPiece, 0.5, kPieces, false}, everywhere);
}

}  // namespace tensorjit::codegen::vector_math::f32
