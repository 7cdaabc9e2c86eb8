// sigmoid, silu and softplus in native f32, built on f32_exp.cpp (tanh: f32_tanh.cpp, gelu_tanh:
// f32_gelu_tanh.cpp). sigmoid and silu are quotients over 1 + e, e = exp(-|a|) <= 1 by exp's
// table of 2^(j/32) (table_exp_parts) rounded to f32 and 1 + e an exact Fast2Sum pair, so the
// result carries e's rounding damped by the quotient's derivative. silu takes its numerator from
// the table's unscaled parts and corrects the quotient by its exact residual; sigmoid corrects
// the quotient but takes e rounded as its numerator (its comment).
// softplus is log1p of exp as a pair (f32_log.cpp).
// Measured bounds: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <limits>

#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// sigmoid(a) = e^a / (1 + e^a) for a < 0 is below 2^-150 from a = -104, silu(a) = a sigmoid(a)
// from a = -109: e = exp(-|a|) is clamped at -120 and the clamped lanes give 0 (times x).
constexpr double kSigmoidLowest = -120.0;

// n / d for n = n_hi + n_lo (n_lo == nullptr: 0; the pair need not be normalised) and a
// normalised pair d: one division, and the quotient corrected once by its exact residual (FMA),
// so it is within about 0.5 ulp of the exact quotient of the pairs. With n_lo, the residual's
// small terms (n_lo - q d_lo) are formed beside its exact main term, one addition after it rather
// than two dependent operations; without n_lo one FMA is cheaper (sigmoid in cache 0.226 against
// 0.234 ns with the split form).
// An infinite n gives NaN (the residual is inf - inf): callers select.
llvm::Value* corrected_quotient(MathBuilder& m, llvm::Value* n_hi, llvm::Value* n_lo,
                                DoubleDouble d) {
  llvm::Value* inverse = m.div(m.real(1.0), d.hi);
  llvm::Value* quotient = m.mul(n_hi, inverse);
  llvm::Value* minus_quotient = m.neg(quotient);
  llvm::Value* residual = m.fma(minus_quotient, d.hi, n_hi);  // exact
  residual = n_lo == nullptr ? m.fma(minus_quotient, d.lo, residual)
                             : m.add(residual, m.fma(minus_quotient, d.lo, n_lo));
  return m.fma(residual, inverse, quotient);
}

// e = exp(y) = high (1 + s) 2^k <= 1 for y = -|a| (the table's parts, f32_exp.cpp) rounded to f32
// (exp's result: exact scaling while e is normal, rounded once more in the subnormals, 0 for the
// clamped lanes), and 1 + e as an exact pair (Fast2Sum). sigmoid and times_sigmoid build the
// same IR for the same y, so a kernel computing both of one value shares it.
struct OnePlusExp {
  TableExpParts parts;
  DoubleDouble sum;
  llvm::Value* e;
};

OnePlusExp one_plus_exp(MathBuilder& m, llvm::Value* y) {
  TableExpParts parts = table_exp_parts(m, y, nullptr, kSigmoidLowest, true);
  llvm::Value* e = m.scale_by_power_of_two(m.fma(parts.high, parts.s, parts.high), parts.k,
                                           parts.k_real);
  return {parts, m.fast_two_sum(m.real(1.0), e), e};
}

// x sigmoid(a) from y = -|a| and `positive` (a >= 0). With e = exp(y) = high (1 + s) 2^k <= 1
// (the table's parts):
//   a >= 0:  x / (1 + e)          a < 0:  (x high (1 + s) / (1 + e)) 2^k
// so exp never overflows and the negative side keeps its relative accuracy down into the
// subnormals (2^k applied last, one rounding there). Scaling x by 2^k first instead (beside
// exp's polynomial, off the chain) was 2% faster for gelu_tanh, which took this path before its
// table, but rounded subnormal results three times: 2.05 ulp at gelu_tanh(-10.108) over all
// f32. The numerator x high (1 + s) is the unnormalised pair {x high, x high s} (an FMA product
// and one FMA, |s| < 0.011), which corrected_quotient takes as it is. Negative lanes with y below
// kSigmoidLowest give x * 0 (NaN for x = -inf, as the ops.def formula), x = +inf gives +inf.
llvm::Value* times_sigmoid(MathBuilder& m, llvm::Value* x, llvm::Value* positive, llvm::Value* y) {
  OnePlusExp denominator = one_plus_exp(m, y);
  const TableExpParts& e = denominator.parts;
  llvm::Value* k = m.ir().CreateSelect(positive, m.integer(0), e.k);
  llvm::Value* k_real = m.select(positive, m.real(0.0), e.k_real);
  DoubleDouble product = m.two_product(x, e.high);
  llvm::Value* product_lo = m.fma(product.hi, e.s, product.lo);
  llvm::Value* numerator_hi = m.select(positive, x, product.hi);
  llvm::Value* numerator_lo = m.select(positive, m.real(0.0), product_lo);
  llvm::Value* quotient = m.scale_by_power_of_two(
      corrected_quotient(m, numerator_hi, numerator_lo, denominator.sum), k, k_real);
  // x * 0 is NaN for x = -inf; x = +inf (its quotient NaN) gives itself.
  llvm::Value* vanishing =
      m.ir().CreateAnd(m.ir().CreateNot(positive), m.less(y, m.real(kSigmoidLowest)));
  llvm::Value* special = m.ir().CreateOr(vanishing, m.equal(x, m.real(kInfinity)));
  return m.select(special, m.select(vanishing, m.mul(x, m.real(0.0)), x), quotient);
}

}  // namespace

// softplus(x) = x for x > 20, else log1p(exp(x)) (ops.def; the threshold is part of the op),
// both native, exp's rounding error carried into log1p's correction term (rounding exp to f32
// first cost up to 1.50 ulp on the dense sample, the pair 1.07).
llvm::Value* softplus(MathBuilder& m, llvm::Value* x) {
  DoubleDouble e = exp_pair(m, x);
  llvm::Value* smooth = log1p_of_pair(m, e.hi, e.lo);
  return m.select(m.greater(x, m.real(ir::kSoftplusThreshold<float>)), x, smooth);
}

// sigmoid(x) = 1 / (1 + exp(-x)), the ops.def definition, as n / (1 + e) with e = exp(-|x|) and
// n = 1 (x >= 0) or e (x < 0). e enters the quotient rounded (exp's result), so the negative side
// carries e's error (within exp's bound) damped by 1 / (1 + e), on top of the quotient's half
// ulp. Unlike times_sigmoid's negative side there is no numerator pair and no scaling after the
// quotient: in cache sigmoid 0.288 -> 0.215 ns, W2 0.570 -> 0.510 (vecmath_kernels, builds
// alternated), for 0.87 -> 1.36 ulp on the dense sample. Subnormal results are e rounded to the
// subnormals (1 + e is 1 there); lanes below kSigmoidLowest give 0.
llvm::Value* sigmoid(MathBuilder& m, llvm::Value* x) {
  OnePlusExp denominator = one_plus_exp(m, m.neg(m.abs(x)));
  llvm::Value* numerator = m.select(m.greater_equal(x, m.real(0.0)), m.real(1.0), denominator.e);
  return corrected_quotient(m, numerator, nullptr, denominator.sum);
}

// silu(x) = x / (1 + exp(-x)); silu(-inf) is NaN as in that formula. Every result has x's sign
// (zeros included).
llvm::Value* silu(MathBuilder& m, llvm::Value* x) {
  llvm::Value* positive = m.greater_equal(x, m.real(0.0));
  return m.copysign(times_sigmoid(m, x, positive, m.neg(m.abs(x))), x);
}

}  // namespace tensorjit::codegen::vector_math::f32
