// A row kernel's spec (row_kernel.hpp) flattened into what the lowering walks and the key prints.
// LLVM-free: everything in it belongs in the kernel's key.
#pragma once

#include <string>
#include <vector>

#include <tensorjit/codegen/row_kernel.hpp>

#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

struct RowPlanPhase {
  RowPhaseKind kind = RowPhaseKind::loop;
  ir::Op op = ir::Op::reduce_sum;
  DType input_dtype = DType::f32;        // reduce, column_reduce: the producer's output
  DType accumulator_dtype = DType::f32;  // reduce, column_reduce: the lanes' and the result's dtype
  LoopPlan expression;                   // loop: outputs; reduce, column_reduce: the producer
  std::vector<int> reads;
  std::vector<int> writes;
  LoopPlan consumer;                     // reduce: input 0 is the result, then consumer inputs
  std::vector<int> consumer_reads;
  std::vector<int> consumer_writes;
};

struct RowPlan {
  std::vector<RowValue> values;
  std::vector<RowPlanPhase> phases;
  bool reduces_rows = false;      // a column_reduce phase: rows run RowArgs::row_step apart
  bool streaming_stores = false;  // RowKernelSpec::streaming_stores
  std::vector<bool> streamed;     // per value: stored with non-temporal stores
};

// Flattens and checks `spec` (throws InternalError on a broken contract: a phase reading a value
// that is not yet computed, a loop writing a row value, ...).
RowPlan make_row_plan(const RowKernelSpec& spec);

std::string row_plan_text(const RowPlan& plan);

}  // namespace tensorjit::codegen
