// scan_kernel.hpp's entry point: the plan, its key and the compile.
#include <tensorjit/codegen/scan_kernel.hpp>

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include "codegen/src/jit/module_builder.hpp"
#include "codegen/src/lower/lower_scan.hpp"
#include "codegen/src/lower/scan_plan.hpp"

namespace tensorjit::codegen {

KernelHandle compile_scan_kernel(Jit& jit, const ScanKernelSpec& spec, const DumpRequest* dump) {
  // The plan is copied into the builder: the Jit may run it again later for a dump.
  ScanPlan plan = make_scan_plan(spec);
  std::string key = scan_plan_text(plan);
  std::string symbol = fmt::format("tj_scan_{:016x}", llvm::xxh3_64bits(llvm::StringRef(key)));
  const int vector_bits = jit.target().vector_bits;
  ModuleBuilder builder([plan = std::move(plan), symbol, vector_bits](llvm::Module& module) {
    build_scan_kernel(module, plan, symbol, vector_bits);
  });
  return jit.get_or_compile(KernelKey{std::move(key), /*may_start_quick=*/false}, symbol, builder, dump);
}

}  // namespace tensorjit::codegen
