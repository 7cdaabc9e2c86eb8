#include "math_builder.hpp"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/TargetParser/Host.h>

namespace tensorjit::codegen::vector_math {
namespace {

llvm::Type* with_lanes(llvm::Type* element, unsigned lanes) {
  return lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
}

constexpr double kRoundingShifter = 0x1.8p52;     // 1.5 * 2^52: the sum's ulp is 1
constexpr double kRoundingShifterF32 = 0x1.8p23;  // the same for f32

// Kernels are compiled for the host CPU and its features (jit_engine.hpp), so the host decides
// whether vscalef exists; it does at every width and in the scalar form together (F and VL).
bool host_has_scalef() {
  static const bool has = [] {
    const auto features = llvm::sys::getHostCPUFeatures();
    auto enabled = [&](const char* name) {
      auto found = features.find(name);
      return found != features.end() && found->getValue();
    };
    return enabled("avx512f") && enabled("avx512vl");
  }();
  return has;
}

// vscalef's rounding operand: the current rounding mode (round to nearest), no suppression.
constexpr std::uint32_t kCurrentRounding = 4;

}  // namespace

MathBuilder::MathBuilder(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes,
                         Evaluation evaluation)
    : builder_(builder),
      module_(module),
      lanes_(lanes),
      evaluation_(evaluation),
      real_type_(with_lanes(evaluation == Evaluation::f32 ? builder.getFloatTy()
                                                           : builder.getDoubleTy(), lanes)),
      integer_type_(with_lanes(evaluation == Evaluation::f32 ? builder.getInt32Ty()
                                                              : builder.getInt64Ty(), lanes)) {}

llvm::Value* MathBuilder::real(double value) { return llvm::ConstantFP::get(real_type_, value); }

llvm::Value* MathBuilder::formula_constant(double value) {
  return real(single_precision_source() ? static_cast<double>(static_cast<float>(value)) : value);
}

llvm::Value* MathBuilder::integer(std::int64_t value) {
  return llvm::ConstantInt::get(integer_type_, static_cast<std::uint64_t>(value), true);
}

llvm::Value* MathBuilder::fma(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
  return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {real_type_}, {a, b, c});
}

llvm::Value* MathBuilder::abs(llvm::Value* a) {
  return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
}

llvm::Value* MathBuilder::copysign(llvm::Value* magnitude, llvm::Value* sign) {
  return builder_.CreateCopySign(magnitude, sign);
}

llvm::Value* MathBuilder::truncate(llvm::Value* a) {
  return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, a);
}

llvm::Value* MathBuilder::polynomial(llvm::Value* x, std::initializer_list<double> coefficients) {
  const double* last = coefficients.end() - 1;
  llvm::Value* sum = real(*last);
  for (const double* c = last; c != coefficients.begin();) {
    --c;
    sum = fma(sum, x, real(*c));
  }
  return sum;
}

MathBuilder::Rounded MathBuilder::round_to_integer(llvm::Value* x, double scale) {
  llvm::Value* shifter = real(native_f32() ? kRoundingShifterF32 : kRoundingShifter);
  llvm::Value* shifted = scale == 1.0 ? add(x, shifter) : fma(x, real(scale), shifter);
  llvm::Value* value = sub(shifted, shifter);
  llvm::Value* integer_value = builder_.CreateSub(to_bits(shifted), to_bits(shifter));
  return {value, integer_value};
}

llvm::Value* MathBuilder::power_of_two(llvm::Value* k) {
  const bool f32 = native_f32();
  return from_bits(builder_.CreateShl(builder_.CreateAdd(k, integer(f32 ? 127 : 1023)), f32 ? 23 : 52));
}

llvm::Value* MathBuilder::x86_scalef(llvm::Value* p, llvm::Value* k, llvm::Value* k_real) {
  const bool f32 = real_type_->getScalarType()->isFloatTy();
  const unsigned bits = lanes_ * (f32 ? 32 : 64);
  if (!host_has_scalef() || (lanes_ != 1 && bits != 128 && bits != 256 && bits != 512)) {
    return nullptr;  // e.g. 16 f64 lanes of an f32 kernel evaluated in f64
  }
  auto& b = builder_;
  // A register wider than the kernel's VECTOR_BITS is split by LLVM, which cannot split an x86
  // intrinsic (module_builder.cpp sets this attribute on every kernel function).
  const llvm::Attribute legal =
      b.GetInsertBlock()->getParent()->getFnAttribute("min-legal-vector-width");
  unsigned legal_bits = 0;
  if (lanes_ != 1 && (!legal.isValid() || legal.getValueAsString().getAsInteger(10, legal_bits) ||
                      bits > legal_bits)) {
    return nullptr;
  }
  if (k_real == nullptr) k_real = b.CreateSIToFP(k, real_type_);
  if (lanes_ == 1) {
    // The scalar form works on the low lane of 128-bit registers.
    llvm::Type* wide = llvm::FixedVectorType::get(real_type_, f32 ? 4 : 2);
    llvm::Value* poison = llvm::PoisonValue::get(wide);
    llvm::Value* result = b.CreateIntrinsic(
        f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ss : llvm::Intrinsic::x86_avx512_mask_scalef_sd,
        {}, {b.CreateInsertElement(poison, p, std::uint64_t(0)),
             b.CreateInsertElement(poison, k_real, std::uint64_t(0)), poison, b.getInt8(0xff),
             b.getInt32(kCurrentRounding)});
    return b.CreateExtractElement(result, std::uint64_t(0));
  }
  llvm::Value* zero = llvm::Constant::getNullValue(real_type_);
  switch (bits) {
    case 128:
      return b.CreateIntrinsic(f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_128
                                   : llvm::Intrinsic::x86_avx512_mask_scalef_pd_128,
                               {}, {p, k_real, zero, b.getInt8(0xff)});
    case 256:
      return b.CreateIntrinsic(f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                                   : llvm::Intrinsic::x86_avx512_mask_scalef_pd_256,
                               {}, {p, k_real, zero, b.getInt8(0xff)});
    default:  // 512
      if (f32) {
        return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
                                 {p, k_real, zero, b.getInt16(0xffff), b.getInt32(kCurrentRounding)});
      }
      return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_pd_512, {},
                               {p, k_real, zero, b.getInt8(0xff), b.getInt32(kCurrentRounding)});
  }
}

llvm::Value* MathBuilder::scale_by_power_of_two(llvm::Value* p, llvm::Value* k, llvm::Value* k_real) {
  if (llvm::Value* scaled = x86_scalef(p, k, k_real)) return scaled;
  if (evaluation_ == Evaluation::f64_for_f32) return mul(p, power_of_two(k));
  llvm::Value* first = builder_.CreateAShr(k, 1);
  llvm::Value* second = builder_.CreateSub(k, first);
  return mul(mul(p, power_of_two(first)), power_of_two(second));
}

DoubleDouble MathBuilder::two_sum(llvm::Value* a, llvm::Value* b) {
  llvm::Value* sum = add(a, b);
  llvm::Value* b_part = sub(sum, a);
  llvm::Value* a_part = sub(sum, b_part);
  llvm::Value* error = add(sub(a, a_part), sub(b, b_part));
  return {sum, error};
}

DoubleDouble MathBuilder::fast_two_sum(llvm::Value* a, llvm::Value* b) {
  llvm::Value* sum = add(a, b);
  return {sum, sub(b, sub(sum, a))};
}

DoubleDouble MathBuilder::two_product(llvm::Value* a, llvm::Value* b) {
  llvm::Value* product = mul(a, b);
  return {product, fma(a, b, neg(product))};
}

}  // namespace tensorjit::codegen::vector_math
