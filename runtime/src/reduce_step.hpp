// A reduce step: a reduction with its elementwise producers and consumers as one JIT'd kernel
// (reduce_step.cpp).
#pragma once

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/reduce_kernel.hpp>

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// The kernel, the values it reads in argument order (producer inputs, then consumer inputs) and
// its arguments but for the buffers.
struct PreparedReduce final : PreparedStep {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  std::vector<std::int64_t> input_strides;  // leaves x (2 * codegen::kMaxLoopRank)
  codegen::ReduceArgs arguments{};          // shapes, counts; no pointers
  std::int64_t output_count = 0;
  std::size_t partial_bytes = 0;  // one block partial (codegen::reduce_partial_bytes)

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override;
};

std::shared_ptr<const PreparedReduce> prepare_reduce_step(const ir::Step& step, const ValueTable& values,
                                                         const StepDump& dump);

}  // namespace tensorjit::detail
