#include "codegen/src/lower/storage_float.hpp"

#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen {
namespace {

// `element` with value's shape: a scalar, or a vector of as many lanes.
llvm::Type* like(llvm::Value* value, llvm::Type* element) {
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType()))
    return llvm::FixedVectorType::get(element, vector->getNumElements());
  return element;
}

llvm::Value* splat_i32(llvm::IRBuilder<>& builder, llvm::Value* like_value, std::uint32_t bits) {
  return llvm::ConstantInt::get(like(like_value, builder.getInt32Ty()), bits);
}

// The f32 bits of bf16's round to nearest even, in the high half: bits + 0x7FFF + (bit 16), or
// for NaN the bits with the quiet bit set (dtype.hpp's bf16_bits_from_float).
llvm::Value* bf16_rounded_bits(llvm::IRBuilder<>& builder, llvm::Value* value) {
  llvm::Value* bits = builder.CreateBitCast(value, like(value, builder.getInt32Ty()));
  llvm::Value* odd = builder.CreateAnd(builder.CreateLShr(bits, splat_i32(builder, value, 16)),
                                       splat_i32(builder, value, 1));
  llvm::Value* rounded = builder.CreateAdd(builder.CreateAdd(bits, splat_i32(builder, value, 0x7FFF)), odd);
  llvm::Value* quiet = builder.CreateOr(bits, splat_i32(builder, value, 0x00400000));
  return builder.CreateSelect(builder.CreateFCmpUNO(value, value), quiet, rounded);
}

void check_storage(DType dtype) {
  TJ_INTERNAL_CHECK(is_storage_float(dtype)) << "kernel: " << dtype_name(dtype) << " is not f16 or bf16";
}

}  // namespace

llvm::Type* storage_element_type(llvm::LLVMContext& context, DType dtype) {
  check_storage(dtype);
  return dtype == DType::f16 ? llvm::Type::getHalfTy(context) : llvm::Type::getInt16Ty(context);
}

llvm::Value* widen_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* stored) {
  check_storage(dtype);
  llvm::Type* floats = like(stored, builder.getFloatTy());
  // The fence keeps the f32 value opaque: without it InstCombine turns a compare of two widened
  // values (maximum, relu, where's conditions) into a compare of the halves, which the x86 backend
  // without AVX-512 FP16 splits into one scalar compare and branch per lane (10x slower, W1 in f16).
  if (dtype == DType::f16) return builder.CreateArithmeticFence(builder.CreateFPExt(stored, floats), floats);
  llvm::Value* wide = builder.CreateZExt(stored, like(stored, builder.getInt32Ty()));
  return builder.CreateBitCast(builder.CreateShl(wide, splat_i32(builder, wide, 16)), floats);
}

llvm::Value* narrow_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* value) {
  check_storage(dtype);
  if (dtype == DType::f16) return builder.CreateFPTrunc(value, like(value, builder.getHalfTy()));
  llvm::Value* high = builder.CreateLShr(bf16_rounded_bits(builder, value), splat_i32(builder, value, 16));
  return builder.CreateTrunc(high, like(value, builder.getInt16Ty()));
}

llvm::Value* round_to_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* value) {
  check_storage(dtype);
  if (dtype == DType::f16) return widen_storage_float(builder, dtype, narrow_storage_float(builder, dtype, value));
  llvm::Value* high = builder.CreateAnd(bf16_rounded_bits(builder, value), splat_i32(builder, value, 0xFFFF0000u));
  return builder.CreateBitCast(high, value->getType());
}

}  // namespace tensorjit::codegen
