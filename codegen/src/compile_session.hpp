// What one compile asks of the JIT's layers, and what they report back. ORC's transform layers
// and compile function see only a module or an object buffer; they find the session it belongs
// to by the module's identifier (which the compiled object's buffer carries too).
#pragma once

#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>

#include <tensorjit/codegen/jit.hpp>

namespace tensorjit::codegen {

struct CompileSession {
  const DumpRequest* dump = nullptr;  // write .ll / .opt.ll from the IR transform when set
  double optimize_ms = 0;
  double codegen_ms = 0;
  std::string object;                 // the object code the JIT linked, captured on its way
  // An exception our own code raised inside an ORC callback: it became an llvm::Error there (no
  // C++ exception crosses LLVM frames) and is rethrown once the lookup has returned.
  std::exception_ptr failure;
};

class CompileRegistry {
 public:
  void add(const std::string& module_id, CompileSession& session);
  void remove(const std::string& module_id);
  CompileSession* find(const std::string& module_id);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, CompileSession*> sessions_;
};

// Registers a session for the lifetime of a scope.
class ScopedCompileSession {
 public:
  ScopedCompileSession(CompileRegistry& registry, std::string module_id, CompileSession& session)
      : registry_(registry), module_id_(std::move(module_id)) {
    registry_.add(module_id_, session);
  }
  ~ScopedCompileSession() { registry_.remove(module_id_); }
  ScopedCompileSession(const ScopedCompileSession&) = delete;
  ScopedCompileSession& operator=(const ScopedCompileSession&) = delete;

 private:
  CompileRegistry& registry_;
  std::string module_id_;
};

}  // namespace tensorjit::codegen
