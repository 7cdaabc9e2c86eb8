// The callback that fills a kernel's module. Internal to codegen/ (it names LLVM types); the
// lowering of fused IR kernels hands one to Jit::get_or_compile.
#pragma once

#include <functional>
#include <utility>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace tensorjit::codegen {

// Contract: the module it is given is fresh, in its own LLVMContext, with the host's data layout
// and triple already set. The builder defines the kernel function under the symbol passed to
// get_or_compile (external linkage), plus anything it needs (declarations of libm functions
// resolve against the process). It must not add fast-math flags (docs/contracts.md, contract 4).
// It runs on the thread that called get_or_compile, outside any LLVM callback, so it may throw:
// the exception reaches that caller unchanged and nothing is cached.
class ModuleBuilder {
 public:
  using Fill = std::function<void(llvm::Module&)>;
  explicit ModuleBuilder(Fill fill) : fill_(std::move(fill)) {}
  void operator()(llvm::Module& module) const { fill_(module); }

 private:
  Fill fill_;
};

// Attributes a kernel function should carry: nounwind, and the width it was built at as both the
// preferred and the minimum legal vector width, so that codegen neither widens its vectors nor
// splits them below that width (a width the CPU lacks is still split into registers it has).
void set_kernel_function_attributes(llvm::Function& function, int vector_bits);

}  // namespace tensorjit::codegen
