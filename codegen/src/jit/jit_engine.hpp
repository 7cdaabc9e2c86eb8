// The one ORC LLJIT of the process and the layers around it:
//   IRTransformLayer     dumps the IR as built, runs the kernel pipeline, dumps the optimized IR
//   compile function     codegen with a TargetMachine borrowed from a pool (concurrent compiles)
//   ObjectTransformLayer captures the object the JIT links (disk cache, asm dumps)
//   ObjectLinkingLayer   JITLink, small code model
// Materialization runs on the thread that asked for the symbol (no compile thread pool), so
// compiles from several threads run at once. Internal to codegen/.
#pragma once

#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DataLayout.h>

#include "codegen/src/jit/compile_session.hpp"
#include "codegen/src/jit/target_machine_pool.hpp"

namespace tensorjit::codegen {

class JitEngine {
 public:
  // Made on first use and never destroyed (see jit.hpp, "Process model"). Throws
  // tensorjit::InternalError if LLVM cannot make a JIT for this host.
  static JitEngine& instance();

  llvm::orc::LLJIT& lljit() { return *lljit_; }
  CompileRegistry& registry() { return registry_; }
  // TargetMachines made for one tier's codegen level.
  TargetMachinePool& machines(CodeTier tier) { return *machines_[static_cast<int>(tier)]; }
  const llvm::DataLayout& data_layout() const { return lljit_->getDataLayout(); }
  const llvm::Triple& triple() const { return lljit_->getTargetTriple(); }

 private:
  JitEngine();
  void install_transforms();

  CompileRegistry registry_;
  std::unique_ptr<TargetMachinePool> machines_[2];  // by CodeTier
  std::unique_ptr<llvm::orc::LLJIT> lljit_;
};

// Errors the ExecutionSession reported on this thread since the last call (link errors such as
// an unresolved symbol), joined with "; ". Empty if none.
std::string take_reported_errors();

// The JITTargetMachineBuilder kernels of `tier` are compiled with: the host CPU and features,
// small code model, the tier's codegen level, FP op fusion Strict (no contraction,
// docs/contracts.md, contract 4). Throws tensorjit::InternalError if the host cannot be detected.
llvm::orc::JITTargetMachineBuilder kernel_target_machine_builder(CodeTier tier);

}  // namespace tensorjit::codegen
