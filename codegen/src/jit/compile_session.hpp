// What one compile asks of the JIT's layers, and what they report back. ORC's transform layers
// and compile function see only a module or an object buffer; they find the session by the
// module's address (session_id), which the compile function also gives the object's buffer as
// its name. The module identifier itself stays the kernel's symbol, so that neither the dumps nor
// the object bytes depend on which compile of the process made them.
#pragma once

#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>

#include <llvm/IR/Module.h>

#include <tensorjit/codegen/jit.hpp>

namespace tensorjit::codegen {

struct CompileSession {
  const DumpRequest* dump = nullptr;  // write .ll / .opt.ll from the IR transform when set
  CodeTier tier = CodeTier::optimized;  // picks the codegen level (optimization_pipeline.hpp)
  double optimize_ms = 0;
  double codegen_ms = 0;
  std::string object;  // the object code the JIT linked, captured on its way
  // An exception our own code raised inside an ORC callback: it became an llvm::Error there (no
  // C++ exception crosses LLVM frames) and is rethrown once the lookup has returned.
  std::exception_ptr failure;
};

// The registry key of the compile of `module`: unique among the modules alive at once. An
// address can be reused once a module is freed, hence remove() checks the session too.
std::string session_id(const llvm::Module& module);

class CompileRegistry {
 public:
  void add(const std::string& id, CompileSession& session);
  // Removes the entry only if it is still `session`'s.
  void remove(const std::string& id, const CompileSession& session);
  CompileSession* find(const std::string& id);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, CompileSession*> sessions_;
};

// Registers a session for the lifetime of a scope.
class ScopedCompileSession {
 public:
  ScopedCompileSession(CompileRegistry& registry, std::string id, CompileSession& session)
      : registry_(registry), id_(std::move(id)), session_(session) {
    registry_.add(id_, session);
  }
  ~ScopedCompileSession() { registry_.remove(id_, session_); }
  ScopedCompileSession(const ScopedCompileSession&) = delete;
  ScopedCompileSession& operator=(const ScopedCompileSession&) = delete;

 private:
  CompileRegistry& registry_;
  std::string id_;
  const CompileSession& session_;
};

}  // namespace tensorjit::codegen
