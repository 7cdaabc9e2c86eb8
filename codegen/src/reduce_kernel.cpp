// reduce_kernel.hpp's entry points: the plan of both expressions, the key and the compile.
#include <tensorjit/codegen/reduce_kernel.hpp>

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include <tensorjit/ir/check.hpp>

#include "lower_reduce.hpp"
#include "module_builder.hpp"

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

ReducePlan make_reduce_plan(const ReduceKernelSpec& spec) {
  TJ_INTERNAL_CHECK(is_jit_reduction(spec.op))
      << "reduce kernel: " << ir::op_name(spec.op) << " is not lowered by the JIT";
  TJ_INTERNAL_CHECK(spec.producer.outputs.size() == 1)
      << "reduce kernel: the producer has " << spec.producer.outputs.size() << " outputs, not 1";
  TJ_INTERNAL_CHECK(spec.result && spec.result->op() == ir::Op::input)
      << "reduce kernel: the result leaf is not an input node";
  ReducePlan plan;
  plan.op = spec.op;
  plan.input_dtype = spec.producer.outputs.front()->dtype();
  plan.accumulator_dtype = reduce_accumulator_dtype(spec.op, plan.input_dtype);
  const DType result_dtype = ir::reduce_result_dtype(spec.op, plan.input_dtype);
  TJ_INTERNAL_CHECK(spec.result->dtype() == result_dtype)
      << "reduce kernel: the result leaf is " << dtype_name(spec.result->dtype()) << ", but "
      << ir::op_name(spec.op) << " of " << dtype_name(plan.input_dtype) << " gives "
      << dtype_name(result_dtype);
  plan.producer =
      make_loop_plan(LoopKernelSpec{spec.producer, spec.producer_inputs, spec.producer_access});
  plan.vectorize_outputs = spec.vectorize_outputs;
  if (spec.vectorize_outputs) {
    TJ_INTERNAL_CHECK(spec.producer_kept_access.size() == spec.producer_inputs.size())
        << "reduce kernel: " << spec.producer_inputs.size() << " producer inputs but "
        << spec.producer_kept_access.size() << " kept access classes";
    plan.producer_kept_access = spec.producer_kept_access;
  }
  // Consumer inputs are read one element per output: their access class plays no part.
  LoopKernelSpec consumer{spec.consumer, {spec.result}, {InnerAccess::broadcast}};
  for (const auto& input : spec.consumer_inputs) {
    consumer.inputs.push_back(input);
    consumer.access.push_back(InnerAccess::broadcast);
  }
  plan.consumer = make_loop_plan(consumer);
  return plan;
}

std::string reduce_plan_text(const ReducePlan& plan) {
  std::string tiles;
  if (plan.vectorize_outputs) {
    tiles = "; output tiles, kept axis:";
    for (InnerAccess access : plan.producer_kept_access)
      tiles += access == InnerAccess::contiguous  ? " contiguous"
               : access == InnerAccess::broadcast ? " broadcast"
                                                  : " strided";
  }
  return fmt::format("reduce {}:{}->{}; producer {}; consumer {}{}", ir::op_name(plan.op),
                     dtype_name(plan.input_dtype), dtype_name(plan.accumulator_dtype),
                     loop_plan_text(plan.producer), loop_plan_text(plan.consumer), tiles);
}

KernelHandle compile_reduce_kernel(Jit& jit, const ReduceKernelSpec& spec,
                                   const DumpRequest* dump) {
  // The plan is copied into the builder: the Jit may run it again later for a dump.
  ReducePlan plan = make_reduce_plan(spec);
  std::string key = reduce_plan_text(plan);
  std::string symbol = fmt::format("tj_reduce_{:016x}", llvm::xxh3_64bits(llvm::StringRef(key)));
  const int vector_bits = jit.target().vector_bits;
  ModuleBuilder builder([plan = std::move(plan), symbol, vector_bits](llvm::Module& module) {
    build_reduce_kernel(module, plan, symbol, vector_bits);
  });
  return jit.get_or_compile(KernelKey{std::move(key), /*may_start_quick=*/false}, symbol, builder, dump);
}

}  // namespace tensorjit::codegen
