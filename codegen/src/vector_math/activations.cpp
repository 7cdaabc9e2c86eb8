// tanh and the logistic activations in f64, built on exp.cpp. No polynomial of their own: each
// formula is chosen so that no step cancels and no intermediate leaves the normal range, and the
// error is exp's plus a rounding or two (measured bounds: docs/vector_math.md).
#include "codegen/src/vector_math/functions.hpp"

#include <limits>

#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen::vector_math {
namespace {

// Below exp(-1460) even x = DBL_MAX (e^709.8) times it underflows to zero: times_sigmoid clamps its
// exponent there rather than at exp's -746, so x e^a with a in [-1460, -746] is not lost.
constexpr double kSigmoidLowest = -1460.0;

// x * sigmoid(a) for a = a.hi + a.lo: with e = exp(-|a|) = p 2^k <= 1,
//   a >= 0:  x / (1 + e)          a < 0:  (x p / (1 + e)) 2^k
// so exp never overflows and the negative side keeps its relative accuracy down into the
// subnormals (2^k is applied last, rounding once). 1 + e is a double-double (Fast2Sum), x p an
// exact product, and the quotient gets one Newton correction from its exact residual, so the
// division adds about 0.5 ulp to exp's error. An infinite x with a < 0 gives NaN, as the ops.def
// formulas do (-inf * 0).
llvm::Value* times_sigmoid(MathBuilder& m, llvm::Value* x, DoubleDouble a) {
  auto& b = m.ir();
  llvm::Value* positive = m.greater_equal(a.hi, m.real(0.0));
  llvm::Value* minus_abs_hi = m.select(positive, m.neg(a.hi), a.hi);
  llvm::Value* minus_abs_lo = m.select(positive, m.neg(a.lo), a.lo);
  ExpParts e = exp_parts(m, {minus_abs_hi, minus_abs_lo}, kSigmoidLowest);
  // e itself (for 1 + e) rounds to 0 below 2^-1077.
  llvm::Value* e_k = b.CreateSelect(b.CreateICmpSLT(e.k, m.integer(-1077)), m.integer(-1077), e.k);
  DoubleDouble denominator = m.fast_two_sum(m.real(1.0), m.scale_by_power_of_two(e.p, e_k));
  // From k <= -2 (|a| > 1, so x p / 2 is normal) p / 2 and k + 1: x p cannot overflow.
  llvm::Value* halve = b.CreateICmpSLE(e.k, m.integer(-2));
  llvm::Value* p = m.select(halve, m.mul(e.p, m.real(0.5)), e.p);
  llvm::Value* k_of_p = b.CreateSelect(halve, b.CreateAdd(e.k, m.integer(1)), e.k);
  DoubleDouble product = m.two_product(x, p);
  llvm::Value* numerator = m.select(positive, x, product.hi);
  llvm::Value* numerator_lo = m.select(positive, m.real(0.0), product.lo);
  llvm::Value* inverse = m.div(m.real(1.0), denominator.hi);
  llvm::Value* quotient = m.mul(numerator, inverse);
  llvm::Value* residual = m.fma(m.neg(quotient), denominator.hi, numerator);
  residual = m.fma(m.neg(quotient), denominator.lo, m.add(residual, numerator_lo));
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  llvm::Value* finite = m.less(m.abs(quotient), m.real(kInfinity));
  llvm::Value* corrected = m.select(finite, m.fma(residual, inverse, quotient), quotient);
  llvm::Value* k = b.CreateSelect(positive, m.integer(0), k_of_p);
  // k reaches -2107: below -1000, 2^-600 is applied first (exact: |corrected| > 0.3 there).
  llvm::Value* deep = b.CreateICmpSLT(k, m.integer(-1000));
  corrected = m.mul(corrected, m.select(deep, m.real(0x1p-600), m.real(1.0)));
  k = b.CreateSelect(deep, b.CreateAdd(k, m.integer(600)), k);
  llvm::Value* result = m.scale_by_power_of_two(corrected, k);
  llvm::Value* infinite_times_zero =
      b.CreateAnd(m.equal(m.abs(x), m.real(kInfinity)), b.CreateNot(positive));
  result = m.select(infinite_times_zero, m.real(std::numeric_limits<double>::quiet_NaN()), result);
  // A zero x keeps its sign (the residual correction would add +0 to -0).
  return m.select(m.equal(x, m.real(0.0)), x, result);
}

}  // namespace

// tanh(|x|) from a = -2|x| (exact): below 0.55 (where tanh < 0.5) -t / (t + 2) with t = expm1(a)
// accurate relative to itself; above, 1 - 2e / (1 + e) with e = exp(a) <= 1/3, so the quotient is
// below 1/2 and its error is halved in the result. One reduction gives both e and t; one
// division serves both sides. The sign is copied back (tanh(-0) == -0, NaN stays NaN).
llvm::Value* tanh(MathBuilder& m, llvm::Value* x) {
  llvm::Value* magnitude = m.abs(x);
  ExpParts parts = exp_parts(m, {m.mul(m.real(-2.0), magnitude), nullptr});
  llvm::Value* e = m.scale_by_power_of_two(parts.p, parts.k);
  llvm::Value* t = expm1_from_parts(m, parts);
  llvm::Value* small = m.less(magnitude, m.real(0.55));
  llvm::Value* numerator = m.select(small, m.neg(t), m.add(e, e));
  // t + 2 and 1 + e exactly (Fast2Sum), the quotient corrected by its exact residual.
  DoubleDouble denominator =
      m.fast_two_sum(m.select(small, m.real(2.0), m.real(1.0)), m.select(small, t, e));
  llvm::Value* quotient = m.div(numerator, denominator.hi);
  llvm::Value* residual = m.fma(m.neg(quotient), denominator.hi, numerator);
  residual = m.fma(m.neg(quotient), denominator.lo, residual);
  quotient = m.add(quotient, m.div(residual, denominator.hi));
  llvm::Value* result = m.select(small, quotient, m.sub(m.real(1.0), quotient));
  return m.copysign(result, x);
}

// sigmoid(x) = 1 / (1 + exp(-x)), the ops.def definition.
llvm::Value* sigmoid(MathBuilder& m, llvm::Value* x) {
  return times_sigmoid(m, m.real(1.0), {x, m.real(0.0)});
}

// silu(x) = x / (1 + exp(-x)); silu(-inf) is NaN as in that formula.
llvm::Value* silu(MathBuilder& m, llvm::Value* x) {
  return times_sigmoid(m, x, {x, m.real(0.0)});
}

// softplus(x) = x for x > 20, else log1p(exp(x)) (ops.def; the threshold is part of the op).
llvm::Value* softplus(MathBuilder& m, llvm::Value* x) {
  llvm::Value* smooth = log1p(m, exp(m, x));
  return m.select(m.greater(x, m.real(ir::kSoftplusThreshold<double>)), x, smooth);
}

// gelu_tanh(x) = (0.5 x) (1 + tanh(v)), v = c1 (x + c2 x^3) with the constants of
// ir/scalar_ops.hpp (rounded to the dtype), evaluated as x * sigmoid(2 v), the same function
// without the cancellation of 1 + tanh(v) for v < 0. v is carried as a double-double: for
// x < -5 the result is about exp(2v) and an error of one rounding in v would cost |2v| ulp.
DoubleDouble gelu_tanh_twice_argument(MathBuilder& m, llvm::Value* x) {
  DoubleDouble square = m.two_product(x, x);
  DoubleDouble cube = m.two_product(square.hi, x);
  llvm::Value* cube_lo = m.fma(square.lo, x, cube.lo);
  llvm::Value* c2 = m.formula_constant(ir::kGeluTanhCubic<double>);
  DoubleDouble cubic = m.two_product(c2, cube.hi);
  llvm::Value* cubic_lo = m.fma(c2, cube_lo, cubic.lo);
  DoubleDouble inner = m.two_sum(x, cubic.hi);
  llvm::Value* inner_lo = m.add(inner.lo, cubic_lo);
  llvm::Value* c1 = m.formula_constant(ir::kSqrt2OverPi<double>);
  DoubleDouble v = m.two_product(c1, inner.hi);
  llvm::Value* v_lo = m.fma(c1, inner_lo, v.lo);
  // 2v; the low part is dropped where v itself overflowed (inf - inf).
  llvm::Value* finite = m.less(m.abs(v.hi), m.real(std::numeric_limits<double>::infinity()));
  llvm::Value* twice_lo = m.select(finite, m.mul(m.real(2.0), v_lo), m.real(0.0));
  return {m.mul(m.real(2.0), v.hi), twice_lo};
}

llvm::Value* gelu_tanh(MathBuilder& m, llvm::Value* x) {
  return times_sigmoid(m, x, gelu_tanh_twice_argument(m, x));
}

}  // namespace tensorjit::codegen::vector_math
