// gelu_tanh in native f32, gelu_tanh(x) = (0.5 x) (1 + tanh(v)), v = c1 (x + c2 x^3) with the
// constants of ir/scalar_ops.hpp rounded to f32: the table path of f32_activation_pieces.hpp with
// 32 pieces on x in [-2.875, 5.125); x itself from 5.125 on (exp(-2v) < 2^-25.6 there, and x
// rounds x sigmoid(2v) to within 0.2 ulp); and below the table x exp(2v) / (1 + exp(2v)) by exp.
// At 512 bits a register of table lanes costs about 25 instructions and 8 register copies
// (vpermi2ps overwrites an operand), one that needs both about 70. Each piece's fit error:
// scripts/vector_math_f32_fit.py (gelu_tanh_pieces), 2^-28.9 relative at worst.
// Measured bound and speed: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <tensorjit/ir/scalar_ops.hpp>

#include "codegen/src/vector_math/f32_activation_pieces.hpp"

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr int kFirstPiece = -11;  // the table covers [-2.875, 5.125)

// scripts/vector_math_f32_fit.py, gelu_tanh_pieces(): {c0 hi, c0 lo, c1, ..., c6} per piece.
constexpr float kPieces[32][8] = {
    {-0x1.fa24d8p-8f, 0x1.34dc9ep-33f, -0x1.679c7p-6f, -0x1.aa8658p-6f, -0x1.f36744p-7f, -0x1.70066p-9f, 0x1.0200fcp-9f, 0x1.77e098p-10f},  // x = -2.75 +- 1/8, 2^-28.9
    {-0x1.ee47fcp-7f, 0x1.50e7cap-32f, -0x1.36e638p-5f, -0x1.384d16p-5f, -0x1.0be162p-6f, 0x1.1edd3p-10f, 0x1.1decc2p-8f, 0x1.c2f274p-10f},  // x = -2.5 +- 1/8, 2^-29.2
    {-0x1.bdaaa2p-6f, -0x1.8f6bbep-31f, -0x1.ead1ep-5f, -0x1.92f4f6p-5f, -0x1.887048p-7f, 0x1.0c59f4p-7f, 0x1.c5d7cp-8f, 0x1.9682ap-10f},  // x = -2.25 +- 1/8, 2^-30.5
    {-0x1.73ef88p-5f, 0x1.638408p-30f, -0x1.60a99cp-4f, -0x1.b9db38p-5f, 0x1.f52598p-11f, 0x1.270494p-6f, 0x1.1558cep-7f, 0x1.8b6974p-12f},  // x = -2 +- 1/8, 2^-31.3
    {-0x1.1f8eep-4f, 0x1.ad219p-29f, -0x1.c919eap-4f, -0x1.71c84p-5f, 0x1.8d4d38p-6f, 0x1.d130f4p-6f, 0x1.eb89e4p-8f, -0x1.e34c42p-10f},  // x = -1.75 +- 1/8, 2^-30.1
    {-0x1.9b5ad4p-4f, 0x1.285c8ap-31f, -0x1.058d3cp-3f, -0x1.f402ap-7f, 0x1.cfb278p-5f, 0x1.216f8p-5f, 0x1.700948p-9f, -0x1.27edc6p-8f},  // x = -1.5 +- 1/8, 2^-31.6
    {-0x1.0eebdap-3f, -0x1.e743d8p-30f, -0x1.f5bad6p-4f, 0x1.4c8468p-5f, 0x1.79386ep-4f, 0x1.1565fp-5f, -0x1.77fc6ap-8f, -0x1.afca28p-8f},  // x = -1.25 +- 1/8, 2^-32.2
    {-0x1.453d22p-3f, 0x1.314f0cp-28f, -0x1.53d226p-4f, 0x1.efeb64p-4f, 0x1.ecb0bep-4f, 0x1.4e8f1ap-6f, -0x1.00653p-6f, -0x1.9592f4p-8f},  // x = -1 +- 1/8, 2^-30.9
    {-0x1.5c3da4p-3f, 0x1.48177cp-28f, 0x1.1653fep-10f, 0x1.baaedp-3f, 0x1.08765ap-3f, -0x1.14fc58p-8f, -0x1.74c5a8p-6f, -0x1.62ed66p-9f},  // x = -0.75 +- 1/8, 2^-32.8
    {-0x1.3bfa4ap-3f, -0x1.7ab8ecp-28f, 0x1.0fa05ep-3f, 0x1.3b23b8p-2f, 0x1.c362p-4f, -0x1.137a2ap-5f, -0x1.72a03p-6f, 0x1.7756b6p-9f},  // x = -0.5 +- 1/8, 2^-30.0
    {-0x1.9aee04p-4f, -0x1.997d0ap-29f, 0x1.37f518p-2f, 0x1.7f7632p-2f, 0x1.04e98cp-4f, -0x1.d7c914p-5f, -0x1.d29bd8p-7f, 0x1.0d37cep-7f},  // x = -0.25 +- 1/8, 2^-29.6
    {-0x0p+0f, -0x0p+0f, 0x1p-1f, 0x1.988454p-2f, 0x1.98ea18p-32f, -0x1.11b124p-4f, -0x1.5311d4p-25f, 0x1.4d53b6p-7f},  // x = 0 +- 1/8, 2^-34.8
    {0x1.3288fep-3f, -0x1.997d0ap-29f, 0x1.640574p-1f, 0x1.7f7634p-2f, -0x1.04e98cp-4f, -0x1.d7d41ap-5f, 0x1.d29c38p-7f, 0x1.1467bp-7f},  // x = 0.25 +- 1/8, 2^-30.3
    {0x1.6202dap-2f, 0x1.42a38ap-27f, 0x1.bc17e8p-1f, 0x1.3b23b4p-2f, -0x1.c35decp-4f, -0x1.135c6ep-5f, 0x1.6f5644p-6f, 0x1.1b4822p-9f},  // x = 0.5 +- 1/8, 2^-29.3
    {0x1.28f098p-1f, -0x1.adfa22p-26f, 0x1.ff74d6p-1f, 0x1.baaedp-3f, -0x1.087658p-3f, -0x1.14fe4ap-8f, 0x1.74c4p-6f, -0x1.61c6fep-9f},  // x = 0.75 +- 1/8, 2^-34.4
    {0x1.aeb0b8p-1f, -0x1.67587ap-27f, 0x1.153d22p+0f, 0x1.efeb5ap-4f, -0x1.ecaabep-4f, 0x1.4eb5f4p-6f, 0x1.f730f2p-7f, -0x1.b442b4p-8f},  // x = 1 +- 1/8, 2^-30.3
    {0x1.1e2284p+0f, 0x1.70c5e2p-25f, 0x1.1f5baep+0f, 0x1.4c847ep-5f, -0x1.79426ep-4f, 0x1.155034p-5f, 0x1.97fbb8p-8f, -0x1.8d360ap-8f},  // x = 1.25 +- 1/8, 2^-30.1
    {0x1.664a52p+0f, 0x1.84a172p-25f, 0x1.20b1a8p+0f, -0x1.f40272p-7f, -0x1.cfc27ap-5f, 0x1.2163fcp-5f, -0x1.3cc84cp-9f, -0x1.157bd2p-8f},  // x = 1.5 +- 1/8, 2^-30.9
    {0x1.ae0712p+0f, 0x1.ad219p-29f, 0x1.1c919ep+0f, -0x1.71c84ap-5f, -0x1.8d254p-6f, 0x1.d1451p-6f, -0x1.05c146p-7f, -0x1.11e9d2p-9f},  // x = 1.75 +- 1/8, 2^-30.8
    {0x1.f46084p+0f, -0x1.d38f7ep-27f, 0x1.160a9ap+0f, -0x1.b9db34p-5f, -0x1.f72666p-11f, 0x1.26fbb2p-6f, -0x1.0ef008p-7f, 0x1.010954p-11f},  // x = 2 +- 1/8, 2^-32.2
    {0x1.1c84aap+1f, 0x1.74e128p-24f, 0x1.0f569p+0f, -0x1.92f4e8p-5f, 0x1.87f042p-7f, 0x1.0c218ep-7f, -0x1.92a106p-8f, 0x1.f0fe7cp-10f},  // x = 2.25 +- 1/8, 2^-30.5
    {0x1.3e11b8p+1f, 0x1.2a1cfap-29f, 0x1.09b732p+0f, -0x1.384d12p-5f, 0x1.0bd16ap-6f, 0x1.1e528cp-10f, -0x1.11293cp-8f, 0x1.df920ep-10f},  // x = 2.5 +- 1/8, 2^-32.5
    {0x1.5f02eep+1f, -0x1.aecb24p-25f, 0x1.059e72p+0f, -0x1.aa8654p-6f, 0x1.f34742p-7f, -0x1.702604p-9f, -0x1.d0c8aap-10f, 0x1.847a4ep-10f},  // x = 2.75 +- 1/8, 2^-32.8
    {0x1.7f88dp+1f, -0x1.4e18cap-24f, 0x1.02f72ep+0f, -0x1.043d9cp-6f, 0x1.7c94c6p-7f, -0x1.0bd6aep-8f, -0x1.2092f2p-12f, 0x1.bdc44ap-11f},  // x = 3 +- 1/8, 2^-35.4
    {0x1.9fcc9ap+1f, -0x1.31654cp-24f, 0x1.016caap+0f, -0x1.1d07f8p-7f, 0x1.f2d5a4p-8f, -0x1.e9c246p-9f, 0x1.fe8916p-12f, 0x1.3586dcp-12f},  // x = 3.25 +- 1/8, 2^-33.2
    {0x1.bfebcep+1f, 0x1.eb97a2p-24f, 0x1.009ec6p+0f, -0x1.1825d4p-8f, 0x1.1d155ap-8f, -0x1.6331ecp-9f, 0x1.8c3b2p-10f, 0x1.73bfe4p-13f},  // x = 3.5 +- 1/8, 2^-31.5
    {0x1.dff8dp+1f, 0x1.8fa854p-24f, 0x1.003e5ap+0f, -0x1.ecdad6p-10f, 0x1.1ee01p-9f, -0x1.b0174cp-10f, 0x1.7160b6p-10f, 0x1.2a149ep-16f},  // x = 3.75 +- 1/8, 2^-31.5
    {0x1.fffdb2p+1f, 0x1.77fefep-24f, 0x1.0015f6p+0f, -0x1.826b52p-11f, 0x1.02337ap-10f, -0x1.c0058cp-11f, 0x1.4fd6f4p-13f, -0x1.0ef4bap-12f},  // x = 4 +- 1/8, 2^-32.5
    {0x1.0fffacp+2f, -0x1.ed5f1ap-24f, 0x1.0006e6p+0f, -0x1.0cb97p-12f, 0x1.961276p-12f, -0x1.91c454p-12f, 0x1.6e2384p-19f, -0x1.8d405ap-13f},  // x = 4.25 +- 1/8, 2^-33.0
    {0x1.1fffeap+2f, 0x1.d1e26ap-24f, 0x1.0001ecp+0f, -0x1.49bc36p-14f, 0x1.1032fcp-13f, -0x1.38fa84p-13f, 0x1.592aaap-13f, -0x1.03989ap-14f},  // x = 4.5 +- 1/8, 2^-35.7
    {0x1.2ffffcp+2f, -0x1.b65b7ep-23f, 0x1.000078p+0f, -0x1.632162p-16f, 0x1.a3669ep-15f, -0x1.8eb5b4p-15f, -0x1.107766p-11f, -0x1.3e7beap-13f},  // x = 4.75 +- 1/8, 2^-32.0
    {0x1.4p+2f, -0x1.ec28cep-23f, 0x1.00001ap+0f, -0x1.4d4a02p-18f, 0x1.34c922p-17f, -0x1.e725aep-17f, 0x1.f208b2p-15f, -0x1.d44254p-19f},  // x = 5 +- 1/8, 2^-35.8
};

// Below the table 2v = -s (b + a s^2) with s = |x|, b = 2 c1 (exact) and a = 2 c1 c2 (a product
// of two f32, exact as a_hi + a_lo), carried as a pair (FMA products, one Fast2Sum, the larger
// term first): the result is about x exp(2v), and one rounding of 2v would cost |2v| (up to 120)
// times 2^-24 relative. s is clamped at 16 (NaN passes): beyond, 2v is below -120 and s^2
// cannot overflow.
DoubleDouble twice_argument(MathBuilder& m, llvm::Value* x) {
  constexpr double c1 = ir::kSqrt2OverPi<float>, c2 = ir::kGeluTanhCubic<float>;
  constexpr double a = 2.0 * c1 * c2;  // exact in double: 48 significant bits
  constexpr double a_hi = static_cast<float>(a);
  constexpr double a_lo = static_cast<float>(a - a_hi);
  constexpr double kArgumentLimit = 16.0;
  llvm::Value* magnitude = m.abs(x);
  llvm::Value* s =
      m.select(m.greater(magnitude, m.real(kArgumentLimit)), m.real(kArgumentLimit), magnitude);
  DoubleDouble square = m.two_product(s, s);
  DoubleDouble cubic = m.two_product(m.real(a_hi), square.hi);  // a s^2
  llvm::Value* cubic_lo =
      m.fma(m.real(a_hi), square.lo, m.fma(m.real(a_lo), square.hi, cubic.lo));
  llvm::Value* b = m.real(2.0 * c1);
  llvm::Value* cubic_larger = m.greater(cubic.hi, b);
  DoubleDouble w = m.fast_two_sum(m.select(cubic_larger, cubic.hi, b),
                                  m.select(cubic_larger, b, cubic.hi));
  llvm::Value* minus_s = m.neg(s);
  DoubleDouble y = m.two_product(minus_s, w.hi);
  return {y.hi, m.fma(minus_s, m.add(w.lo, cubic_lo), y.lo)};
}

// gelu_tanh(x) = x e / (1 + e), e = exp(2v), for x below the table (2v < -6.28, e < 0.0019;
// other lanes get values that are thrown away). With exp's table parts e = high (1 + s) 2^k and
// 1 / (1 + e) = 1 - e + e^2 to e^3 (below 2^-27.1, 0.08 ulp), the result is
//   x high (1 + c) 2^k,   c = s - e (1 - e) (1 + s),
// so no division: x high is an FMA product pair P + p, the result P + fma(P, c, p) rounded once
// (c's and e's roundings enter at 2^-24 of a term below 0.013 of it), then scaled by 2^k (one
// more rounding for subnormal results). Lanes whose 2v is below -120 give x * 0 (-0, and NaN for
// x = -inf as in the ops.def formula); NaN stays NaN.
llvm::Value* below_table(MathBuilder& m, llvm::Value* x) {
  constexpr double kLowest = -120.0;  // x e rounds to -0 from 2v = -106.4 (x = -10.77) on
  DoubleDouble y = twice_argument(m, x);
  TableExpParts parts = table_exp_parts(m, y.hi, y.lo, kLowest, true);
  llvm::Value* e = m.scale_by_power_of_two(m.fma(parts.high, parts.s, parts.high), parts.k,
                                           parts.k_real);
  llvm::Value* minus_e_kept = m.fma(e, e, m.neg(e));  // -e (1 - e)
  llvm::Value* c = m.add(parts.s, m.fma(minus_e_kept, parts.s, minus_e_kept));
  DoubleDouble product = m.two_product(x, parts.high);
  llvm::Value* scaled = m.add(product.hi, m.fma(product.hi, c, product.lo));
  llvm::Value* result = m.scale_by_power_of_two(scaled, parts.k, parts.k_real);
  return m.select(m.less(y.hi, m.real(kLowest)), m.mul(x, m.real(0.0)), result);
}

}  // namespace

llvm::Value* gelu_tanh(MathBuilder& m, llvm::Value* x) {
  return activation_from_pieces(m, x, {"gelu_tanh", kFirstPiece, 0.25, kPieces, true}, below_table);
}

}  // namespace tensorjit::codegen::vector_math::f32
