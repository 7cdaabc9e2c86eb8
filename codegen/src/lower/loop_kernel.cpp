// loop_kernel.hpp's two entry points: the structural key and the compile through the Jit.
#include <tensorjit/codegen/loop_kernel.hpp>

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include "codegen/src/lower/lower_loop.hpp"
#include "codegen/src/jit/module_builder.hpp"

namespace tensorjit::codegen {

std::string loop_kernel_key(const LoopKernelSpec& spec) {
  return loop_plan_text(make_loop_plan(spec));
}

KernelHandle compile_loop_kernel(Jit& jit, const LoopKernelSpec& spec, const DumpRequest* dump) {
  // The plan is copied into the builder: the Jit may run it again later for a dump.
  LoopPlan plan = make_loop_plan(spec);
  std::string key = loop_plan_text(plan);
  std::string symbol = fmt::format("tj_loop_{:016x}", llvm::xxh3_64bits(llvm::StringRef(key)));
  const int vector_bits = jit.target().vector_bits;
  ModuleBuilder builder([plan = std::move(plan), symbol, vector_bits](llvm::Module& module) {
    build_loop_kernel(module, plan, symbol, vector_bits);
  });
  const bool flat = spec.form != LoopForm::tile;  // tile kernels are epilogues: optimized at once
  return jit.get_or_compile(KernelKey{std::move(key), flat}, symbol, builder, dump);
}

}  // namespace tensorjit::codegen
