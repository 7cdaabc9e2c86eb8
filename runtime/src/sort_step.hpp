// A sort step: sort and argsort nodes of one operand along one axis, in one direction, keeping one
// count (a topk's values and indices), computed by one sort per row (sort_step.cpp).
#pragma once

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Nothing is compiled: kernels::sort_row is precompiled code.
std::shared_ptr<const PreparedStep> prepare_sort_step(const ir::Step& step, const ValueTable& values,
                                                      const StepDump& dump);

}  // namespace tensorjit::detail
