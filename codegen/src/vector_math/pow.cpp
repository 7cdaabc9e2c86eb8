// pow in f64: |x|^y = exp(y log|x|) with log|x| as a double-double (log.cpp, relative error below
// 2^-64) and the product y log|x| formed exactly by FMA, so the exponent's absolute error stays
// below 2^-54 wherever the result is finite and normal. The sign and the special values follow
// C99 Annex F as glibc implements it:
//   pow(x, +-0) = 1 and pow(1, y) = 1, even for NaN;       other NaN operands give NaN;
//   x < 0 finite and y finite non-integer give NaN;       x < 0 and odd integer y negate;
//   pow(+-0, y) = +-0 / +0 for y > 0 and +-inf / +inf for y < 0 (odd integer y / other y);
//   pow(-1, +-inf) = 1; pow(x, +-inf) and pow(+-inf, y) by |x| against 1 and the sign of y.
#include "codegen/src/vector_math/functions.hpp"

#include <limits>

namespace tensorjit::codegen::vector_math {

llvm::Value* pow_from_log(MathBuilder& m, llvm::Value* x, llvm::Value* y, DoubleDouble logarithm,
                          const std::function<llvm::Value*(DoubleDouble)>& exp_of) {
  auto& b = m.ir();
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  llvm::Value* magnitude = m.abs(x);
  // log|x| of 0 and inf are -inf and inf exactly; elsewhere the pair.
  llvm::Value* zero = m.equal(magnitude, m.real(0.0));
  llvm::Value* infinite = m.equal(magnitude, m.real(kInfinity));
  llvm::Value* log_hi = m.select(zero, m.real(-kInfinity),
                                 m.select(infinite, m.real(kInfinity), logarithm.hi));
  llvm::Value* log_lo = m.select(b.CreateOr(zero, infinite), m.real(0.0), logarithm.lo);
  DoubleDouble product = m.two_product(y, log_hi);
  llvm::Value* product_lo = m.fma(y, log_lo, product.lo);
  // An infinite or NaN product has no meaningful low part (inf - inf).
  llvm::Value* finite = m.less(m.abs(product.hi), m.real(kInfinity));
  product_lo = m.select(finite, product_lo, m.real(0.0));
  llvm::Value* result = exp_of({product.hi, product_lo});
  // |x| == 1 with y = +-inf: the product is NaN (inf * 0); the result is 1.
  result = m.select(m.equal(magnitude, m.real(1.0)), m.real(1.0), result);

  // Sign for x < 0 (also -0 and -inf): odd integer y negates; finite non-integer y gives NaN for
  // finite nonzero x. |y| beyond the format's integers is even; y = +-inf counts as not odd.
  llvm::Value* integral = m.equal(m.truncate(y), y);
  llvm::Value* half = m.mul(y, m.real(0.5));
  llvm::Value* odd = b.CreateAnd(integral, b.CreateNot(m.equal(m.truncate(half), half)));
  llvm::Value* negative = b.CreateICmpSLT(m.to_bits(x), m.integer(0));
  result = m.select(b.CreateAnd(negative, odd), m.neg(result), result);
  llvm::Value* finite_y = m.less(m.abs(y), m.real(kInfinity));
  llvm::Value* finite_nonzero_x = b.CreateAnd(b.CreateNot(zero), b.CreateNot(infinite));
  llvm::Value* invalid = b.CreateAnd(b.CreateAnd(negative, finite_nonzero_x),
                                     b.CreateAnd(finite_y, b.CreateNot(integral)));
  result = m.select(invalid, m.real(std::numeric_limits<double>::quiet_NaN()), result);

  // NaN operands propagate, except pow(x, 0) and pow(1, y), which are 1.
  result = m.select(b.CreateOr(m.is_nan(x), m.is_nan(y)), m.add(x, y), result);
  llvm::Value* one = b.CreateOr(m.equal(y, m.real(0.0)), m.equal(x, m.real(1.0)));
  return m.select(one, m.real(1.0), result);
}

llvm::Value* pow(MathBuilder& m, llvm::Value* x, llvm::Value* y) {
  return pow_from_log(m, x, y, log_double_double(m, m.abs(x)),
                      [&](DoubleDouble exponent) { return exp_double_double(m, exponent); });
}

}  // namespace tensorjit::codegen::vector_math
