#include "codegen/src/lower/index_check.hpp"

#include <cstddef>
#include <utility>

#include <llvm/IR/MDBuilder.h>

#include <tensorjit/codegen/loop_kernel.hpp>

namespace tensorjit::codegen {

ResolvedIndex resolve_index(llvm::IRBuilder<>& builder, llvm::Value* indices, llvm::Value* extent) {
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(indices->getType());
  auto splat = [&](llvm::Value* scalar) {
    return vector ? builder.CreateVectorSplat(vector->getNumElements(), scalar) : scalar;
  };
  llvm::Value* wide_extent = splat(extent);
  llvm::Value* zero = splat(builder.getInt64(0));
  llvm::Value* element =
      builder.CreateSelect(builder.CreateICmpSLT(indices, zero), builder.CreateAdd(indices, wide_extent), indices);
  // Unsigned: a still negative element is outside too.
  llvm::Value* inside = builder.CreateICmpULT(element, wide_extent, "inside");
  return {inside, builder.CreateSelect(inside, element, zero, "element")};
}

void emit_index_fault(llvm::IRBuilder<>& builder, llvm::Value* fault, std::int64_t input,
                      const ResolvedIndex& resolved, llvm::Value* indices, llvm::Value* position) {
  llvm::LLVMContext& context = builder.getContext();
  llvm::Function* function = builder.GetInsertBlock()->getParent();
  llvm::Type* i64 = builder.getInt64Ty();
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(indices->getType());
  llvm::Value* outside_lanes = builder.CreateNot(resolved.inside);
  llvm::Value* outside = vector ? builder.CreateOrReduce(outside_lanes) : outside_lanes;
  llvm::BasicBlock* report = llvm::BasicBlock::Create(context, "index_fault", function);
  llvm::BasicBlock* checked = llvm::BasicBlock::Create(context, "index_checked", function);
  builder.CreateCondBr(outside, report, checked, llvm::MDBuilder(context).createBranchWeights(1, 1 << 20));
  builder.SetInsertPoint(report);
  llvm::Value* lane = builder.getInt64(0);
  llvm::Value* value = indices;
  if (vector) {
    const unsigned lanes = vector->getNumElements();
    llvm::Value* mask = builder.CreateBitCast(outside_lanes, builder.getIntNTy(lanes));
    lane = builder.CreateZExt(builder.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, mask, builder.getTrue()), i64);
    value = builder.CreateExtractElement(indices, lane);
  }
  llvm::Value* at = builder.CreateAdd(position, lane, "fault_position");
  auto field = [&](std::size_t offset) { return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), fault, offset); };
  llvm::Value* found = builder.CreateAlignedLoad(i64, field(offsetof(IndexFault, found)), llvm::Align(8));
  llvm::Value* held = builder.CreateAlignedLoad(i64, field(offsetof(IndexFault, position)), llvm::Align(8));
  llvm::Value* replace = builder.CreateOr(builder.CreateICmpEQ(found, builder.getInt64(0)), builder.CreateICmpSLT(at, held));
  const std::pair<std::size_t, llvm::Value*> writes[] = {{offsetof(IndexFault, found), builder.getInt64(1)},
                                                         {offsetof(IndexFault, input), builder.getInt64(input)},
                                                         {offsetof(IndexFault, index), value},
                                                         {offsetof(IndexFault, position), at}};
  for (const auto& [offset, written] : writes) {
    llvm::Value* pointer = field(offset);
    llvm::Value* kept = builder.CreateAlignedLoad(i64, pointer, llvm::Align(8));
    builder.CreateAlignedStore(builder.CreateSelect(replace, written, kept), pointer, llvm::Align(8));
  }
  builder.CreateBr(checked);
  builder.SetInsertPoint(checked);
}

}  // namespace tensorjit::codegen
