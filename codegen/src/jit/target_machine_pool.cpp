#include "codegen/src/jit/target_machine_pool.hpp"

namespace tensorjit::codegen {

TargetMachinePool::TargetMachinePool(llvm::orc::JITTargetMachineBuilder builder)
    : builder_(std::move(builder)) {}

TargetMachinePool::Lease::~Lease() {
  if (!machine_) return;  // moved from
  std::lock_guard lock(pool_->mutex_);
  pool_->idle_.push_back(std::move(machine_));
}

llvm::Expected<TargetMachinePool::Lease> TargetMachinePool::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto machine = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(machine));
    }
  }
  // Made outside the lock: creation is the slow part and is safe to run concurrently.
  auto made = builder_.createTargetMachine();
  if (!made) return made.takeError();
  return Lease(*this, std::move(*made));
}

}  // namespace tensorjit::codegen
