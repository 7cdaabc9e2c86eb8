// A single step: one node materialised by itself (single_step.cpp).
#pragma once

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Nothing is compiled for a single step: preparing it gives an object that runs it.
std::shared_ptr<const PreparedStep> prepare_single_step(const ir::Step& step, const ValueTable& values,
                                                        const StepDump& dump);

}  // namespace tensorjit::detail
