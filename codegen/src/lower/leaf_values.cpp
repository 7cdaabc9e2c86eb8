#include "codegen/src/lower/leaf_values.hpp"

#include <bit>

#include <tensorjit/codegen/loop_kernel.hpp>

#include "codegen/src/lower/emit_elementwise.hpp"

namespace tensorjit::codegen {

llvm::Value* iota_offset(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* address) {
  llvm::Value* bytes = builder.CreateSub(builder.CreatePtrToInt(address, builder.getInt64Ty()),
                                         builder.getInt64(static_cast<std::int64_t>(kIotaAddress)));
  return builder.CreateLShr(bytes, builder.getInt64(std::countr_zero(itemsize(dtype))), "iota_offset");
}

llvm::Value* LeafReader::iota_values(const LeafSource& leaf, llvm::Value* offsets) {
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  llvm::Type* doubles = register_type(module_.getContext(), DType::f64, lanes_);
  llvm::Value* position = builder_.CreateSIToFP(offsets, doubles);
  llvm::Value* value =
      builder_.CreateFAdd(emitter.constant(DType::f64, ir::Scalar::of(DType::f64, leaf.iota->start)),
                          builder_.CreateFMul(position, emitter.constant(DType::f64, ir::Scalar::of(DType::f64, leaf.iota->step))));
  llvm::Value* operands[] = {value};
  return emitter.emit(ir::Op::cast, leaf.dtype, DType::f64, operands);
}

llvm::Value* LeafReader::read(const LeafSource& leaf, llvm::Value* address) {
  if (leaf.iota) return read_strided(leaf, address, builder_.getInt64(1));
  llvm::Type* element = memory_element_type(module_.getContext(), leaf.dtype);
  llvm::Type* type = lanes_ == 1 ? element : llvm::FixedVectorType::get(element, lanes_);
  const llvm::Align align(itemsize(leaf.dtype));
  llvm::Value* loaded = nullptr;
  if (mask_ != nullptr && lanes_ > 1)
    loaded = builder_.CreateMaskedLoad(type, address, align, mask_, llvm::Constant::getNullValue(type));
  else
    loaded = builder_.CreateAlignedLoad(type, address, align);
  return ElementwiseEmitter(builder_, module_, lanes_).from_memory(leaf.dtype, loaded);
}

llvm::Value* LeafReader::read_strided(const LeafSource& leaf, llvm::Value* address, llvm::Value* stride) {
  if (leaf.iota) {
    llvm::Value* offset = iota_offset(builder_, leaf.dtype, address);
    if (lanes_ == 1) return iota_values(leaf, offset);
    std::vector<llvm::Constant*> lane_numbers;
    for (unsigned lane = 0; lane < lanes_; ++lane) lane_numbers.push_back(builder_.getInt64(lane));
    llvm::Value* steps = builder_.CreateMul(llvm::ConstantVector::get(lane_numbers), builder_.CreateVectorSplat(lanes_, stride));
    return iota_values(leaf, builder_.CreateAdd(builder_.CreateVectorSplat(lanes_, offset), steps));
  }
  // Scalar loads assembled with insertelement: gathers are slow on the CPUs we target.
  llvm::Type* element = memory_element_type(module_.getContext(), leaf.dtype);
  const llvm::Align align(itemsize(leaf.dtype));
  auto load_at = [&](unsigned lane) {
    llvm::Value* at = builder_.CreateGEP(element, address, builder_.CreateMul(builder_.getInt64(lane), stride));
    return builder_.CreateAlignedLoad(element, at, align);
  };
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  if (lanes_ == 1) return emitter.from_memory(leaf.dtype, load_at(0));
  llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes_));
  for (unsigned lane = 0; lane < lanes_; ++lane) vector = builder_.CreateInsertElement(vector, load_at(lane), lane);
  return emitter.from_memory(leaf.dtype, vector);
}

}  // namespace tensorjit::codegen
