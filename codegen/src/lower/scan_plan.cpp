// The scan kernel's plan (scan_plan.hpp): both expressions flattened and checked, and its text.
#include "codegen/src/lower/scan_plan.hpp"

#include <fmt/format.h>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen {

DType scan_accumulator_dtype(DType input_dtype) { return ir::scan_result_dtype(input_dtype); }

ScanPlan make_scan_plan(const ScanKernelSpec& spec) {
  TJ_INTERNAL_CHECK(spec.op == ir::Op::cumsum) << "scan kernel: " << ir::op_name(spec.op) << " is not a scan";
  TJ_INTERNAL_CHECK(spec.producer.outputs.size() == 1)
      << "scan kernel: the producer has " << spec.producer.outputs.size() << " outputs, not 1";
  TJ_INTERNAL_CHECK(spec.result && spec.result->op() == ir::Op::input)
      << "scan kernel: the result leaf is not an input node";
  const std::size_t producer_count = spec.producer_inputs.size();
  TJ_INTERNAL_CHECK(spec.input_access.size() == producer_count + spec.consumer_inputs.size())
      << "scan kernel: " << spec.input_access.size() << " access classes for "
      << producer_count + spec.consumer_inputs.size() << " inputs";
  TJ_INTERNAL_CHECK(spec.output_access.size() == spec.consumer.outputs.size())
      << "scan kernel: " << spec.output_access.size() << " output access classes for "
      << spec.consumer.outputs.size() << " outputs";
  ScanPlan plan;
  plan.op = spec.op;
  plan.input_dtype = spec.producer.outputs.front()->dtype();
  plan.accumulator_dtype = scan_accumulator_dtype(plan.input_dtype);
  TJ_INTERNAL_CHECK(spec.result->dtype() == plan.accumulator_dtype)
      << "scan kernel: the result leaf is " << dtype_name(spec.result->dtype()) << ", but a scan of "
      << dtype_name(plan.input_dtype) << " gives " << dtype_name(plan.accumulator_dtype);
  const auto split = spec.input_access.begin() + static_cast<std::ptrdiff_t>(producer_count);
  plan.producer = make_loop_plan(
      LoopKernelSpec{spec.producer, spec.producer_inputs, std::vector<InnerAccess>(spec.input_access.begin(), split)});
  LoopKernelSpec consumer{spec.consumer, {spec.result}, {InnerAccess::broadcast}};
  consumer.inputs.insert(consumer.inputs.end(), spec.consumer_inputs.begin(), spec.consumer_inputs.end());
  consumer.access.insert(consumer.access.end(), split, spec.input_access.end());
  plan.consumer = make_loop_plan(consumer);
  plan.output_access = spec.output_access;
  return plan;
}

std::string scan_plan_text(const ScanPlan& plan) {
  std::string outputs;
  for (InnerAccess access : plan.output_access)
    outputs += access == InnerAccess::contiguous ? " contiguous" : access == InnerAccess::broadcast ? " broadcast" : " strided";
  return fmt::format("scan {}:{}->{}; producer {}; consumer {}; outputs along the lines:{}", ir::op_name(plan.op),
                     dtype_name(plan.input_dtype), dtype_name(plan.accumulator_dtype), loop_plan_text(plan.producer),
                     loop_plan_text(plan.consumer), outputs);
}

}  // namespace tensorjit::codegen
