// How every kernel family compiles its plan through the Jit. Internal to codegen/.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include <tensorjit/codegen/jit.hpp>

#include "codegen/src/jit/module_builder.hpp"

namespace tensorjit::codegen {

// The plan's text is the kernel's cache key and its hash names the symbol (`tj_<family>_<hash>`);
// the builder lowers the plan with `build` at the Jit's width. The plan is moved into the
// builder, since the Jit may run it again later for a dump. `may_start_quick`: whether the
// kernel may run its quick first tier before the optimized one (KernelKey).
template <class Plan>
KernelHandle compile_plan(Jit& jit, std::string_view family, Plan plan, std::string (*text)(const Plan&),
                          void (*build)(llvm::Module&, const Plan&, const std::string&, int),
                          bool may_start_quick, const DumpRequest* dump) {
  std::string key = text(plan);
  std::string symbol = fmt::format("tj_{}_{:016x}", family, llvm::xxh3_64bits(llvm::StringRef(key)));
  const int vector_bits = jit.target().vector_bits;
  ModuleBuilder builder([plan = std::move(plan), symbol, vector_bits, build](llvm::Module& module) {
    build(module, plan, symbol, vector_bits);
  });
  return jit.get_or_compile(KernelKey{std::move(key), may_start_quick}, symbol, builder, dump);
}

}  // namespace tensorjit::codegen
