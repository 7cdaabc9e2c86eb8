// A row step (softmax, layernorm, ...) as one JIT'd row kernel (row_kernel_step.cpp), or, when
// some operand's rows or columns do not merge into one axis, part by part (row_step.hpp).
#pragma once

#include <tensorjit/codegen/jit.hpp>

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// The kernel, the memory values it reads in argument order with their (row, column) strides, its
// scratch rows. A null kernel means the step runs part by part (run_row_step).
struct PreparedRow final : PreparedStep {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  std::vector<std::int64_t> input_strides;  // leaves x 3: per outer row, per inner row, per column
  std::vector<DType> scratch;               // one row of `columns` elements each, per task
  // Per leaf (or empty, or shorter: none): the gather that reads it at its indices, or null
  // (codegen/row_kernel.hpp, "Gathers"); its indexed axis's extent and stride; where a gathered
  // leaf that is no value of the plan is read (a literal constant, held here; an axis of no
  // elements), or null.
  std::vector<ir::NodePtr> gathers;
  std::vector<std::int64_t> gather_bounds;  // leaves x 2
  std::vector<const void*> fixed_pointers;
  std::vector<std::shared_ptr<ir::Buffer>> held;
  // Per column_reduce phase (codegen/row_kernel.hpp), in order: the step output its sums go to.
  struct ColumnSum {
    int output = 0;
    DType dtype = DType::f32;
  };
  std::vector<ColumnSum> column_sums;
  std::int64_t rows = 0;
  std::int64_t inner_rows = 1;  // codegen::RowArgs::inner_rows
  std::int64_t columns = 0;

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override;
};

std::shared_ptr<const PreparedRow> prepare_row_kernel_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump);

}  // namespace tensorjit::detail
