// erf in native f32: two intervals of |x|, both evaluated in every lane and selected.
//   |x| < 1:  erf = |x| + |x| p(x^2), p of degree 6 (near-minimax, 2^-29.4 relative)
//   above:    erf = 1 - e(t - 2.25), t = min(|x|, 4), e of degree 15 approximating erfc on [1, 4]
//             with an absolute error of 2^-30.5 (erf rounds to 1 from 3.92, so 4 stands for every
//             larger t)
// Coefficients: scripts/vector_math_f32_fit.py. erfc is at most 0.16 on the second interval, so
// Horner's roundings in e cost a fraction of an ulp of erf (>= 0.84 there) before the final
// subtraction rounds; the expansion point 2.25 keeps |t - 2.25| small where erfc is largest. No
// exp and no division. Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kPolynomialLimit = 1.0;
constexpr double kCap = 4.0;
constexpr double kExpansionPoint = 2.25;

}  // namespace

llvm::Value* erf(MathBuilder& m, llvm::Value* x) {
  llvm::Value* magnitude = m.abs(x);
  llvm::Value* p = m.polynomial(m.mul(magnitude, magnitude),
                                {0x1.06eba8p-3, -0x1.81273ep-2, 0x1.ce2ce6p-4, -0x1.b7f71ap-6,
                                 0x1.53f224p-8, -0x1.a3515ep-11, 0x1.4771fcp-14});
  llvm::Value* small = m.fma(magnitude, p, magnitude);
  // Compare-and-select: NaN passes and gives NaN below.
  llvm::Value* t = m.select(m.greater(magnitude, m.real(kCap)), m.real(kCap), magnitude);
  llvm::Value* erfc = m.polynomial(
      m.sub(t, m.real(kExpansionPoint)),
      {0x1.7f7138p-10, -0x1.d4145p-8, 0x1.074b8p-6, -0x1.63eef2p-6, 0x1.38a81ap-6,
       -0x1.5d403ap-7, 0x1.7ce1f4p-9, 0x1.60494ap-11, -0x1.06f3f8p-10, 0x1.81b5d6p-12,
       0x1.0ddaf6p-16, -0x1.0fc4dcp-14, 0x1.450248p-16, 0x1.05d36ap-19, -0x1.26e442p-19,
       0x1.770236p-22});
  llvm::Value* large = m.sub(m.real(1.0), erfc);
  llvm::Value* result = m.select(m.less(magnitude, m.real(kPolynomialLimit)), small, large);
  return m.copysign(result, x);
}

}  // namespace tensorjit::codegen::vector_math::f32
