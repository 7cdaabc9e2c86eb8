// sin, cos and tan in f64.
//
// Range reduction (Cody-Waite with FMA): k = round(x 2/pi), r = x - k pi/2 with pi/2 split in
// three doubles (161 bits, scripts/vector_math_constants.py). The first FMA is exact (the
// difference has at most 53 significant bits), the second term enters by an exact product and
// TwoSum, so r + r_tail is x - k pi/2 to about 2^-100 absolute, enough for the closest approach of
// a double below 2^30 to a multiple of pi/2. Kernels: fdlibm's k_sin.c / k_cos.c (Sun
// Microsystems, 1993) on |r| <= pi/4 with the tail correction, minimax error below 2^-58.
// Quadrant k mod 4 picks the kernel and the sign. tan is sin(r) / cos(r) for even k and
// -cos(r) / sin(r) for odd k, the kernels' leading terms and tails divided as pairs (one division
// and its FMA residual, quotient_of_pairs in math_builder.hpp), so that each kernel's last
// rounding does not reach the quotient.
//
// Range: |x| <= 2^30 (the reduction's k is exact and |r| <= pi/4 + 2^-24). Lanes beyond it (and
// +-inf) are handed to libm's sin/cos, in a block entered only when some lane needs it: the choice
// depends on the lane's own value only, so results stay the same at every width.
#include "codegen/src/vector_math/functions.hpp"

#include <llvm/IR/Intrinsics.h>

namespace tensorjit::codegen::vector_math {
namespace {

constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kHalfPi1 = 0x1.921fb54442d18p+0;
constexpr double kHalfPi2 = 0x1.1a62633145c07p-54;
constexpr double kHalfPi3 = -0x1.f1976b7ed8fbcp-110;
constexpr double kReductionLimit = 0x1p30;

struct Reduced {
  llvm::Value* quadrant;  // i64, k (mod 4 is what matters)
  llvm::Value* r;
  llvm::Value* tail;
};

Reduced reduce(MathBuilder& m, llvm::Value* x) {
  auto k = m.round_to_integer(x, kTwoOverPi);
  llvm::Value* minus_k = m.neg(k.value);
  llvm::Value* r1 = m.fma(minus_k, m.real(kHalfPi1), x);  // exact
  DoubleDouble second = m.two_product(minus_k, m.real(kHalfPi2));
  DoubleDouble sum = m.two_sum(r1, second.hi);
  llvm::Value* low = m.fma(minus_k, m.real(kHalfPi3), m.add(sum.lo, second.lo));
  DoubleDouble r = m.fast_two_sum(sum.hi, low);
  return {k.integer, r.hi, r.lo};
}

// fdlibm __sin(x, y, 1): sin(r + y) on |r| <= pi/4, as r - tail before its last rounding (the
// tail below 0.11 |r|).
struct SinParts {
  llvm::Value* r;
  llvm::Value* tail;
};
SinParts sin_kernel_parts(MathBuilder& m, llvm::Value* r, llvm::Value* y) {
  llvm::Value* z = m.mul(r, r);
  llvm::Value* w = m.mul(z, z);
  // S1..S6 of k_sin.c.
  constexpr double kS1 = -1.66666666666666324348e-01;
  llvm::Value* rest = m.add(m.polynomial(z, {8.33333333332248946124e-03,
                                             -1.98412698298579493134e-04,
                                             2.75573137070700676789e-06}),
                            m.mul(m.mul(z, w), m.polynomial(z, {-2.50507602534068634195e-08,
                                                                1.58969099521155010221e-10})));
  llvm::Value* v = m.mul(z, r);
  llvm::Value* inner = m.sub(m.mul(z, m.sub(m.mul(m.real(0.5), y), m.mul(v, rest))), y);
  return {r, m.sub(inner, m.mul(v, m.real(kS1)))};
}

llvm::Value* sin_kernel(MathBuilder& m, llvm::Value* r, llvm::Value* y) {
  SinParts parts = sin_kernel_parts(m, r, y);
  return m.sub(parts.r, parts.tail);
}

// fdlibm __cos(x, y): cos(r + y) on |r| <= pi/4, as one_minus + correction before the last
// rounding (one_minus = 1 - r^2/2 rounded, the correction below 0.02).
DoubleDouble cos_kernel_parts(MathBuilder& m, llvm::Value* r, llvm::Value* y) {
  llvm::Value* z = m.mul(r, r);
  llvm::Value* w = m.mul(z, z);
  // C1..C6 of k_cos.c.
  llvm::Value* rest = m.add(
      m.mul(z, m.polynomial(z, {4.16666666666666019037e-02, -1.38888888888741095749e-03,
                                2.48015872894767294178e-05})),
      m.mul(m.mul(w, w), m.polynomial(z, {-2.75573143513906633035e-07,
                                          2.08757232129817482790e-09,
                                          -1.13596475577881948265e-11})));
  llvm::Value* half_z = m.mul(m.real(0.5), z);
  llvm::Value* one_minus = m.sub(m.real(1.0), half_z);
  llvm::Value* correction = m.add(m.sub(m.sub(m.real(1.0), one_minus), half_z),
                                  m.sub(m.mul(z, rest), m.mul(r, y)));
  return {one_minus, correction};
}

llvm::Value* cos_kernel(MathBuilder& m, llvm::Value* r, llvm::Value* y) {
  DoubleDouble parts = cos_kernel_parts(m, r, y);
  return m.add(parts.hi, parts.lo);
}

// tan(x) for |x| <= 2^30: sin / cos of the reduced argument for even k, -cos / sin for odd k.
llvm::Value* tan_reduced(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  Reduced reduced = reduce(m, x);
  SinParts sine = sin_kernel_parts(m, reduced.r, reduced.tail);
  DoubleDouble sin_pair{sine.r, m.neg(sine.tail)};
  DoubleDouble cos_pair = cos_kernel_parts(m, reduced.r, reduced.tail);
  llvm::Value* odd =
      b.CreateICmpNE(b.CreateAnd(reduced.quadrant, m.integer(1)), m.integer(0));
  DoubleDouble numerator{m.select(odd, cos_pair.hi, sin_pair.hi),
                         m.select(odd, cos_pair.lo, sin_pair.lo)};
  DoubleDouble denominator{m.select(odd, sin_pair.hi, cos_pair.hi),
                           m.select(odd, sin_pair.lo, cos_pair.lo)};
  llvm::Value* quotient = m.quotient_of_pairs(numerator, denominator);
  return m.select(odd, m.neg(quotient), quotient);
}

// sin(x + offset * pi/2): quadrant q = k + offset; odd q takes cos, q & 2 negates.
llvm::Value* sin_with_offset(MathBuilder& m, llvm::Value* x, std::int64_t offset) {
  auto& b = m.ir();
  Reduced reduced = reduce(m, x);
  llvm::Value* quadrant = b.CreateAdd(reduced.quadrant, m.integer(offset));
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(quadrant, m.integer(1)), m.integer(0));
  llvm::Value* value = m.select(odd, cos_kernel(m, reduced.r, reduced.tail),
                                sin_kernel(m, reduced.r, reduced.tail));
  llvm::Value* sign_bit = b.CreateShl(b.CreateAnd(quadrant, m.integer(2)), 62);
  return m.from_bits(b.CreateXor(m.to_bits(value), sign_bit));
}

// Lanes with |x| > 2^30 or infinite take libm's `name` (sin or cos), one call per lane.
llvm::Value* with_libm_beyond_range(MathBuilder& m, llvm::Value* x, llvm::Value* reduced_result,
                                    const char* name) {
  auto& b = m.ir();
  llvm::Value* beyond = m.greater(m.abs(x), m.real(kReductionLimit));
  return with_slow_lanes(m, beyond, reduced_result, name, ".libm", [&] {
    llvm::FunctionCallee callee = m.module().getOrInsertFunction(
        name, llvm::FunctionType::get(b.getDoubleTy(), {b.getDoubleTy()}, false));
    auto call = [&](llvm::Value* argument) {
      llvm::CallInst* result = b.CreateCall(callee, {argument});
      result->addFnAttr(llvm::Attribute::NoBuiltin);
      result->addFnAttr(llvm::Attribute::NoUnwind);
      return result;
    };
    if (m.lanes() == 1) return static_cast<llvm::Value*>(call(x));
    llvm::Value* from_libm = llvm::PoisonValue::get(m.real_type());
    for (unsigned lane = 0; lane < m.lanes(); ++lane)
      from_libm = b.CreateInsertElement(from_libm, call(b.CreateExtractElement(x, lane)), lane);
    return from_libm;
  });
}

}  // namespace

llvm::Value* with_slow_lanes(MathBuilder& m, llvm::Value* beyond, llvm::Value* fast, const char* name,
                             const char* slow_label, const std::function<llvm::Value*()>& slow) {
  auto& b = m.ir();
  llvm::Value* any = m.lanes() == 1 ? beyond : b.CreateOrReduce(beyond);
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* function = before->getParent();
  auto* slow_block = llvm::BasicBlock::Create(b.getContext(), std::string(name) + slow_label, function);
  auto* join = llvm::BasicBlock::Create(b.getContext(), std::string(name) + ".join", function);
  b.CreateCondBr(any, slow_block, join);

  b.SetInsertPoint(slow_block);
  llvm::Value* mixed = m.select(beyond, slow(), fast);
  llvm::BasicBlock* slow_end = b.GetInsertBlock();
  b.CreateBr(join);

  b.SetInsertPoint(join);
  llvm::PHINode* result = b.CreatePHI(m.real_type(), 2, name);
  result->addIncoming(fast, before);
  result->addIncoming(mixed, slow_end);
  return result;
}

// sin(+-0) keeps the zero's sign (the reduction would give +0).
llvm::Value* sin(MathBuilder& m, llvm::Value* x) {
  llvm::Value* value = sin_with_offset(m, x, 0);
  value = m.select(m.equal(x, m.real(0.0)), x, value);
  return with_libm_beyond_range(m, x, value, "sin");
}

llvm::Value* cos(MathBuilder& m, llvm::Value* x) {
  return with_libm_beyond_range(m, x, sin_with_offset(m, x, 1), "cos");
}

// tan(+-0) keeps the zero's sign (the quotient's residual would give +0).
llvm::Value* tan(MathBuilder& m, llvm::Value* x) {
  llvm::Value* value = m.select(m.equal(x, m.real(0.0)), x, tan_reduced(m, x));
  return with_libm_beyond_range(m, x, value, "tan");
}

}  // namespace tensorjit::codegen::vector_math
