// A reduce kernel's spec (reduce_kernel.hpp) flattened into what the lowering walks and the key
// prints. LLVM-free: everything in it belongs in the kernel's key.
#pragma once

#include <string>
#include <vector>

#include <tensorjit/codegen/reduce_kernel.hpp>

#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

struct ReducePlan {
  ir::Op op = ir::Op::reduce_sum;
  DType input_dtype = DType::f32;        // the producer's output: the elements reduced
  DType accumulator_dtype = DType::f32;  // the lanes', the partials' and the result's dtype
  LoopPlan producer;                     // one output; inputs in ReduceKernelSpec order
  bool vectorize_outputs = false;        // tiles of outputs along the innermost kept axis
  std::vector<InnerAccess> producer_kept_access;  // when vectorize_outputs: per producer input
  LoopPlan consumer;                     // input 0 is the result, then the consumer inputs
};

ReducePlan make_reduce_plan(const ReduceKernelSpec& spec);

std::string reduce_plan_text(const ReducePlan& plan);

}  // namespace tensorjit::codegen
