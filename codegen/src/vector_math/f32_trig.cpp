// sin, cos and tan in native f32.
//
// Range reduction (Cody-Waite with FMA), for |x| <= 2^20: k = round(x 2/pi) (2/pi rounded to f32,
// so k may be the neighbour of the nearest integer where x 2/pi is within |x| 2^-25.2 of a
// half-integer: |r| <= pi/4 + |x| 2^-25.2 pi/2 <= 0.83), and r = x - k pi/2 with pi/2 = P1 + P2 +
// P3 in three f32 (scripts/vector_math_f32_fit.py; their sum is within 2^-76.3 of pi/2):
//   r1 = x - k P1           one FMA, exact: x and k P1 are multiples of 2^-24 (|x| >= 0.5 where
//                           k != 0) and |r1| < 1
//   dh + dl = -k P2         an FMA product pair (|dh| <= 2^-5)
//   s + t = r1 + dh         Fast2Sum, exact although |r1| may be below |dh|: r1 is a multiple of
//                           2^-24, dh of its own ulp <= 2^-28
//   low = t + dl - k P3     rounded twice, |low| <= ulp(s) / 2 + 2^-29
// so s + low is x - k pi/2 to about 2^-56 absolute; the nearest an f32 below 2^20 comes to a
// multiple of pi/2 leaves that far below 2^-24 of r (the exhaustive f32 run measures it).
// Kernels on |r| <= 0.83, near-minimax with f32 coefficients (scripts/vector_math_f32_fit.py):
//   sin(s + low) = s + (low (1 - z/2) + s^3 S(z)),  z = s^2, S of degree 2 (2^-27.3 relative)
//   cos(s + low) = 1 + (z q(z) + (-z_lo / 2 - s low)),  q(z) = -1/2 + z C(z), C of degree 2
//                  (2^-32.1), z + z_lo = s^2 exactly (FMA product)
// each rounded last at the addition of its leading term (s, 1). Both kernels run in every lane;
// the quadrant k mod 4 picks one (odd k: cos) and its sign (k & 2: negated), as fdlibm does.
// tan is sin / cos for even k and -cos / sin for odd k, both kernels as pairs (leading term and
// tail before their last rounding; cos's leading term 1 - z/2 with its rounding error carried)
// divided by MathBuilder::quotient_of_pairs.
//
// Beyond 2^20 (and +-inf) the lane takes the f64 algorithm (trig.cpp, widened and rounded once,
// itself calling libm beyond 2^30), in a block entered only when some lane of the vector needs
// it: which path a lane takes depends on its own value only, so results stay the same at every
// width and in the loop tail. Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"
#include "codegen/src/vector_math/functions.hpp"

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kTwoOverPi = 0x1.45f306p-1;
constexpr double kHalfPi1 = 0x1.921fb6p+0;
constexpr double kHalfPi2 = -0x1.777a5cp-25;
constexpr double kHalfPi3 = -0x1.ee59dap-50;
constexpr double kReductionLimit = 0x1p20;

struct Reduced {
  llvm::Value* quadrant;  // i32 k (mod 4 is what matters)
  llvm::Value* r;         // s
  llvm::Value* r_lo;      // low
};

Reduced reduce(MathBuilder& m, llvm::Value* x) {
  auto k = m.round_to_integer(x, kTwoOverPi);
  llvm::Value* minus_k = m.neg(k.value);
  llvm::Value* r1 = m.fma(minus_k, m.real(kHalfPi1), x);  // exact
  DoubleDouble d = m.two_product(minus_k, m.real(kHalfPi2));
  DoubleDouble s = m.fast_two_sum(r1, d.hi);  // exact (see above)
  llvm::Value* low = m.fma(minus_k, m.real(kHalfPi3), m.add(s.lo, d.lo));
  return {k.integer, s.hi, low};
}

// sin(r + r_lo) = r + tail, given z = r^2 (rounded); the pair before its last rounding.
DoubleDouble sin_kernel_parts(MathBuilder& m, llvm::Value* r, llvm::Value* r_lo, llvm::Value* z) {
  llvm::Value* s = m.polynomial(z, {-0x1.55553ep-3, 0x1.110486p-7, -0x1.9862acp-13});
  llvm::Value* tail = m.fma(m.mul(z, r), s, m.fma(r_lo, m.mul(z, m.real(-0.5)), r_lo));
  return {r, tail};
}

llvm::Value* sin_kernel(MathBuilder& m, llvm::Value* r, llvm::Value* r_lo, llvm::Value* z) {
  DoubleDouble parts = sin_kernel_parts(m, r, r_lo, z);
  return m.add(parts.hi, parts.lo);
}

// cos(r + r_lo), given z = r^2 (rounded).
llvm::Value* cos_kernel(MathBuilder& m, llvm::Value* r, llvm::Value* r_lo, llvm::Value* z) {
  llvm::Value* c = m.polynomial(z, {0x1.555546p-5, -0x1.6c09cp-10, 0x1.993bd8p-16});
  llvm::Value* q = m.fma(z, c, m.real(-0.5));
  llvm::Value* z_lo = m.fma(r, r, m.neg(z));  // exact
  llvm::Value* correction = m.fma(m.neg(r), r_lo, m.mul(z_lo, m.real(-0.5)));
  return m.add(m.real(1.0), m.fma(z, q, correction));
}

// cos(r + r_lo) as a pair for tan's quotient: (1 - z/2 rounded) + the rest, 1 - z/2's rounding
// error carried exactly (Fast2Sum), so that the tail (z^2 C(z) + corrections, below 0.02) rounds
// far below an ulp of the result; 1 + z q(z) as cos_kernel has it would put a tail of up to 0.33
// (|r| = 0.83), rounded, into the quotient: f32 tan measured 1.47 ulp so, 0.97 with this pair
// (tests_vector_math's sample).
DoubleDouble cos_kernel_pair(MathBuilder& m, llvm::Value* r, llvm::Value* r_lo, llvm::Value* z) {
  llvm::Value* c = m.polynomial(z, {0x1.555546p-5, -0x1.6c09cp-10, 0x1.993bd8p-16});
  llvm::Value* z_lo = m.fma(r, r, m.neg(z));  // exact
  llvm::Value* correction = m.fma(m.neg(r), r_lo, m.mul(z_lo, m.real(-0.5)));
  llvm::Value* half_z = m.mul(z, m.real(0.5));  // exact
  DoubleDouble leading = m.fast_two_sum(m.real(1.0), m.neg(half_z));
  return {leading.hi, m.fma(m.mul(z, z), c, m.add(correction, leading.lo))};
}

// tan(x) for |x| <= 2^20: sin / cos of the reduced argument for even k, -cos / sin for odd k.
llvm::Value* tan_reduced(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  Reduced reduced = reduce(m, x);
  llvm::Value* z = m.mul(reduced.r, reduced.r);
  DoubleDouble sine = sin_kernel_parts(m, reduced.r, reduced.r_lo, z);
  DoubleDouble cosine = cos_kernel_pair(m, reduced.r, reduced.r_lo, z);
  llvm::Value* odd =
      b.CreateICmpNE(b.CreateAnd(reduced.quadrant, m.integer(1)), m.integer(0));
  DoubleDouble numerator{m.select(odd, cosine.hi, sine.hi), m.select(odd, cosine.lo, sine.lo)};
  DoubleDouble denominator{m.select(odd, sine.hi, cosine.hi), m.select(odd, sine.lo, cosine.lo)};
  llvm::Value* quotient = m.quotient_of_pairs(numerator, denominator);
  return m.select(odd, m.neg(quotient), quotient);
}

// sin(x + offset pi/2) for |x| <= 2^20: quadrant k + offset, odd takes cos, & 2 negates.
llvm::Value* sin_with_offset(MathBuilder& m, llvm::Value* x, std::int64_t offset) {
  auto& b = m.ir();
  Reduced reduced = reduce(m, x);
  llvm::Value* z = m.mul(reduced.r, reduced.r);
  llvm::Value* quadrant = b.CreateAdd(reduced.quadrant, m.integer(offset));
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(quadrant, m.integer(1)), m.integer(0));
  llvm::Value* value =
      m.select(odd, cos_kernel(m, reduced.r, reduced.r_lo, z),
               sin_kernel(m, reduced.r, reduced.r_lo, z));
  llvm::Value* sign_bit = b.CreateShl(b.CreateAnd(quadrant, m.integer(2)), 30);
  return m.from_bits(b.CreateXor(m.to_bits(value), sign_bit));
}

// Lanes with |x| > 2^20 or infinite take the f64 algorithm `f64_function` (widened, rounded
// once).
llvm::Value* with_f64_beyond_range(MathBuilder& m, llvm::Value* x, llvm::Value* reduced_result,
                                   llvm::Value* (*f64_function)(MathBuilder&, llvm::Value*),
                                   const char* name) {
  auto& b = m.ir();
  llvm::Value* beyond = m.greater(m.abs(x), m.real(kReductionLimit));
  return vector_math::with_slow_lanes(m, beyond, reduced_result, name, ".f64", [&] {
    MathBuilder wide(b, m.module(), m.lanes(), Evaluation::f64_for_f32);
    return b.CreateFPTrunc(f64_function(wide, b.CreateFPExt(x, wide.real_type())), m.real_type());
  });
}

}  // namespace

// sin(+-0) keeps the zero's sign (the reduction would give +0).
llvm::Value* sin(MathBuilder& m, llvm::Value* x) {
  llvm::Value* value = sin_with_offset(m, x, 0);
  value = m.select(m.equal(x, m.real(0.0)), x, value);
  return with_f64_beyond_range(m, x, value, &vector_math::sin, "sin");
}

llvm::Value* cos(MathBuilder& m, llvm::Value* x) {
  return with_f64_beyond_range(m, x, sin_with_offset(m, x, 1), &vector_math::cos, "cos");
}

// tan(+-0) keeps the zero's sign (the quotient's residual would give +0).
llvm::Value* tan(MathBuilder& m, llvm::Value* x) {
  llvm::Value* value = m.select(m.equal(x, m.real(0.0)), x, tan_reduced(m, x));
  return with_f64_beyond_range(m, x, value, &vector_math::tan, "tan");
}

}  // namespace tensorjit::codegen::vector_math::f32
