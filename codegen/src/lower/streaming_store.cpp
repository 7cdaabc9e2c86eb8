#include "codegen/src/lower/streaming_store.hpp"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/TargetParser/Triple.h>

namespace tensorjit::codegen {

void store_streaming(llvm::IRBuilder<>& builder, llvm::Value* value, llvm::Value* pointer, std::uint64_t bytes) {
  llvm::StoreInst* store = builder.CreateAlignedStore(value, pointer, llvm::Align(bytes));
  llvm::LLVMContext& context = builder.getContext();
  store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                     llvm::MDNode::get(context, llvm::ConstantAsMetadata::get(builder.getInt32(1))));
}

void fence_streaming_stores(llvm::IRBuilder<>& builder, const llvm::Module& module) {
  if (llvm::Triple(module.getTargetTriple()).isX86()) builder.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
}

}  // namespace tensorjit::codegen
