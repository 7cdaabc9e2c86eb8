// reduce_kernel.hpp's entry points: what each reduction accumulates, and the compile.
#include <tensorjit/codegen/reduce_kernel.hpp>

#include "codegen/src/jit/compile_plan.hpp"
#include "codegen/src/lower/lower_reduce.hpp"
#include "codegen/src/lower/reduce_plan.hpp"

namespace tensorjit::codegen {

bool is_jit_reduction(ir::Op op) {
  switch (op) {
    case ir::Op::reduce_sum:
    case ir::Op::reduce_prod:
    case ir::Op::reduce_max:
    case ir::Op::reduce_min:
    case ir::Op::reduce_any:
    case ir::Op::reduce_all:
    case ir::Op::argmax:
    case ir::Op::argmin:
      return true;
    default:
      return false;
  }
}

bool is_arg_reduction(ir::Op op) { return op == ir::Op::argmax || op == ir::Op::argmin; }

DType reduce_accumulator_dtype(ir::Op op, DType input_dtype) {
  const bool arithmetic = op == ir::Op::reduce_sum || op == ir::Op::reduce_prod;
  if (arithmetic && !is_floating(input_dtype)) return DType::i64;
  return input_dtype;
}

std::size_t reduce_partial_bytes(ir::Op op, DType input_dtype) {
  return is_arg_reduction(op) ? 16 : itemsize(reduce_accumulator_dtype(op, input_dtype));
}

KernelHandle compile_reduce_kernel(Jit& jit, const ReduceKernelSpec& spec,
                                   const DumpRequest* dump) {
  return compile_plan(jit, "reduce", make_reduce_plan(spec), reduce_plan_text, build_reduce_kernel,
                      /*may_start_quick=*/false, dump);
}

}  // namespace tensorjit::codegen
