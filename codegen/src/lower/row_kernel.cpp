// row_kernel.hpp's entry point: the plan, its key and the compile.
#include <tensorjit/codegen/row_kernel.hpp>

#include "codegen/src/jit/compile_plan.hpp"
#include "codegen/src/lower/lower_row.hpp"
#include "codegen/src/lower/row_plan.hpp"

namespace tensorjit::codegen {

KernelHandle compile_row_kernel(Jit& jit, const RowKernelSpec& spec, const DumpRequest* dump) {
  return compile_plan(jit, "row", make_row_plan(spec), row_plan_text, build_row_kernel,
                      /*may_start_quick=*/false, dump);
}

}  // namespace tensorjit::codegen
