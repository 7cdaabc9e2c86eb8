// loop_kernel.hpp's two entry points: the structural key and the compile through the Jit.
#include <tensorjit/codegen/loop_kernel.hpp>

#include "codegen/src/lower/lower_loop.hpp"
#include "codegen/src/jit/compile_plan.hpp"

namespace tensorjit::codegen {

std::string loop_kernel_key(const LoopKernelSpec& spec) {
  return loop_plan_text(make_loop_plan(spec));
}

KernelHandle compile_loop_kernel(Jit& jit, const LoopKernelSpec& spec, const DumpRequest* dump) {
  const bool flat = spec.form != LoopForm::tile;  // tile kernels are epilogues: optimized at once
  return compile_plan(jit, "loop", make_loop_plan(spec), loop_plan_text, build_loop_kernel, flat, dump);
}

}  // namespace tensorjit::codegen
