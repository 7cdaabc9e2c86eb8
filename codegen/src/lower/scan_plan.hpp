// A scan kernel's spec (scan_kernel.hpp) flattened into what the lowering walks and the key
// prints. LLVM-free: everything in it belongs in the kernel's key.
#pragma once

#include <string>
#include <vector>

#include <tensorjit/codegen/scan_kernel.hpp>

#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

struct ScanPlan {
  ir::Op op = ir::Op::cumsum;
  DType input_dtype = DType::f32;        // the producer's output: the elements scanned
  DType accumulator_dtype = DType::f32;  // the running sum's, and the result leaf's
  LoopPlan producer;                     // inputs in ScanKernelSpec order, access along the lines
  LoopPlan consumer;                     // input 0 is the result, then the consumer inputs
  std::vector<InnerAccess> output_access;  // one per consumer output
};

ScanPlan make_scan_plan(const ScanKernelSpec& spec);

std::string scan_plan_text(const ScanPlan& plan);

}  // namespace tensorjit::codegen
