// Lowering of one fused reduction kernel (reduce_kernel.hpp) to LLVM IR.
#pragma once

#include <string>

#include <llvm/IR/Module.h>

#include <tensorjit/codegen/reduce_kernel.hpp>

#include "loop_plan.hpp"

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

void build_reduce_kernel(llvm::Module& module, const ReducePlan& plan, const std::string& symbol,
                         int vector_bits);

}  // namespace tensorjit::codegen
