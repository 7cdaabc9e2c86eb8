// The reduce kernel's plan (reduce_plan.hpp): both expressions flattened and checked, and its text.
#include "codegen/src/lower/reduce_plan.hpp"

#include <fmt/format.h>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen {

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

}  // namespace tensorjit::codegen
