// A concat step (ir/passes/fuse.hpp): a concat written in place (concat_step.cpp).
#pragma once

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Compiles the kernels of the step's parts, each writing its outputs at their places in the
// concat's buffer, and one copy kernel per other operand.
std::shared_ptr<const PreparedStep> prepare_concat_step(const ir::Step& step, const ValueTable& values,
                                                        const StepDump& dump);

}  // namespace tensorjit::detail
