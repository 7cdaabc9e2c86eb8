#include "codegen/src/jit/perf_map.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include <unistd.h>

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

#include <tensorjit/error.hpp>

namespace tensorjit::codegen {
namespace {

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  explicit PerfMapPlugin(std::FILE* file) : file_(file) {}

  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    // After fixups every symbol has its final address; the code may not run before this pass.
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph& graph) {
      write_functions(graph);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey, llvm::orc::ResourceKey) override {}

 private:
  void write_functions(llvm::jitlink::LinkGraph& graph) {
    std::lock_guard lock(mutex_);  // links run on the threads that ask for kernels, several at once
    for (const llvm::jitlink::Symbol* symbol : graph.defined_symbols())
      if (symbol->isCallable() && symbol->hasName() && symbol->getSize() > 0)
        std::fprintf(file_, "%llx %llx %s\n", static_cast<unsigned long long>(symbol->getAddress().getValue()),
                     static_cast<unsigned long long>(symbol->getSize()), symbol->getName().str().c_str());
    std::fflush(file_);  // perf may read the file while the process runs, or after it was killed
  }

  std::mutex mutex_;
  std::FILE* file_;  // open until the process exits, as the JIT lives until then (jit.hpp)
};

}  // namespace

void write_perf_map(llvm::orc::LLJIT& lljit) {
  static std::once_flag once;
  std::call_once(once, [&lljit] {
    const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    std::FILE* file = std::fopen(path.c_str(), "a");
    if (file == nullptr)
      throw Error("TENSORJIT_PERF_MAP: cannot open " + path + ": " + std::strerror(errno) +
                  " (perf reads kernel names from there; unset the variable to run without it)");
    auto& linking = llvm::cast<llvm::orc::ObjectLinkingLayer>(lljit.getObjLinkingLayer());
    linking.addPlugin(std::make_shared<PerfMapPlugin>(file));
  });
}

}  // namespace tensorjit::codegen
