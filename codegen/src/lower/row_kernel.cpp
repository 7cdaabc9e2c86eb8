// row_kernel.hpp's entry point: the plan, its key and the compile.
#include <tensorjit/codegen/row_kernel.hpp>

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include "codegen/src/jit/module_builder.hpp"
#include "codegen/src/lower/lower_row.hpp"
#include "codegen/src/lower/row_plan.hpp"

namespace tensorjit::codegen {

KernelHandle compile_row_kernel(Jit& jit, const RowKernelSpec& spec, const DumpRequest* dump) {
  // The plan is copied into the builder: the Jit may run it again later for a dump.
  RowPlan plan = make_row_plan(spec);
  std::string key = row_plan_text(plan);
  std::string symbol = fmt::format("tj_row_{:016x}", llvm::xxh3_64bits(llvm::StringRef(key)));
  const int vector_bits = jit.target().vector_bits;
  ModuleBuilder builder([plan = std::move(plan), symbol, vector_bits](llvm::Module& module) {
    build_row_kernel(module, plan, symbol, vector_bits);
  });
  return jit.get_or_compile(KernelKey{std::move(key), /*may_start_quick=*/false}, symbol, builder, dump);
}

}  // namespace tensorjit::codegen
