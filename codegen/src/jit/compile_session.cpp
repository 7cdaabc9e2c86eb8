#include "codegen/src/jit/compile_session.hpp"

#include <fmt/format.h>

namespace tensorjit::codegen {

std::string session_id(const llvm::Module& module) {
  return fmt::format("tensorjit.session.{}", static_cast<const void*>(&module));
}

void CompileRegistry::add(const std::string& id, CompileSession& session) {
  std::lock_guard lock(mutex_);
  sessions_[id] = &session;
}

void CompileRegistry::remove(const std::string& id, const CompileSession& session) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(id);
  if (found != sessions_.end() && found->second == &session) sessions_.erase(found);
}

CompileSession* CompileRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(id);
  return found == sessions_.end() ? nullptr : found->second;
}

}  // namespace tensorjit::codegen
