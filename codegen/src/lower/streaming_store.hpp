// Non-temporal ("streaming") stores for the loop and row kernels' outputs too large to stay in the
// caches (LoopKernelSpec::streaming_stores, RowKernelSpec::streaming_stores). Internal to codegen/.
#pragma once

#include <cstdint>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace tensorjit::codegen {

// Stores `value` (a vector of `bytes` bytes, at least 16) at `pointer`, which must be aligned to
// `bytes`: LLVM splits a non-temporal store it cannot prove aligned into 8-byte pieces.
void store_streaming(llvm::IRBuilder<>& builder, llvm::Value* value, llvm::Value* pointer, std::uint64_t bytes);

// Non-temporal stores are weakly ordered: a kernel that made some ends with this fence, so that
// its results are visible to whichever thread synchronises with its caller afterwards. Nothing on
// targets other than x86, where the stores are ordinary ones with a hint.
void fence_streaming_stores(llvm::IRBuilder<>& builder, const llvm::Module& module);

}  // namespace tensorjit::codegen
