#include "compile_session.hpp"

namespace tensorjit::codegen {

void CompileRegistry::add(const std::string& module_id, CompileSession& session) {
  std::lock_guard lock(mutex_);
  sessions_[module_id] = &session;
}

void CompileRegistry::remove(const std::string& module_id) {
  std::lock_guard lock(mutex_);
  sessions_.erase(module_id);
}

CompileSession* CompileRegistry::find(const std::string& module_id) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(module_id);
  return found == sessions_.end() ? nullptr : found->second;
}

}  // namespace tensorjit::codegen
