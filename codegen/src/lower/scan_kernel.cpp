// scan_kernel.hpp's entry point: the plan, its key and the compile.
#include <tensorjit/codegen/scan_kernel.hpp>

#include "codegen/src/jit/compile_plan.hpp"
#include "codegen/src/lower/lower_scan.hpp"
#include "codegen/src/lower/scan_plan.hpp"

namespace tensorjit::codegen {

KernelHandle compile_scan_kernel(Jit& jit, const ScanKernelSpec& spec, const DumpRequest* dump) {
  return compile_plan(jit, "scan", make_scan_plan(spec), scan_plan_text, build_scan_kernel,
                      /*may_start_quick=*/false, dump);
}

}  // namespace tensorjit::codegen
