// Lowering of one row kernel (row_kernel.hpp) to LLVM IR. Internal to codegen/src.
#pragma once

#include <string>
#include <vector>

#include <llvm/IR/Module.h>

#include <tensorjit/codegen/row_kernel.hpp>

#include "loop_plan.hpp"

namespace tensorjit::codegen {

struct RowPlanPhase {
  bool reduce = false;
  ir::Op op = ir::Op::reduce_sum;
  DType input_dtype = DType::f32;        // reduce: the producer's output
  DType accumulator_dtype = DType::f32;  // reduce: the lanes' and the result's dtype
  LoopPlan expression;                   // loop: outputs; reduce: the producer
  std::vector<int> reads;
  std::vector<int> writes;
  LoopPlan consumer;                     // reduce: input 0 is the result, then consumer inputs
  std::vector<int> consumer_reads;
  std::vector<int> consumer_writes;
};

struct RowPlan {
  std::vector<RowValue> values;
  std::vector<RowPlanPhase> phases;
  bool streaming_stores = false;  // RowKernelSpec::streaming_stores
  std::vector<bool> streamed;     // per value: stored with non-temporal stores
};

// Flattens and checks `spec` (throws InternalError on a broken contract: a phase reading a value
// that is not yet computed, a loop writing a row value, ...).
RowPlan make_row_plan(const RowKernelSpec& spec);

std::string row_plan_text(const RowPlan& plan);

void build_row_kernel(llvm::Module& module, const RowPlan& plan, const std::string& symbol,
                      int vector_bits);

}  // namespace tensorjit::codegen
