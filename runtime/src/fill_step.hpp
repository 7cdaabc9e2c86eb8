// A fill step: a constant that is a graph output, written out contiguously (fill_step.cpp).
#pragma once

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Nothing is compiled: preparing gives an object that fills the output at each run.
std::shared_ptr<const PreparedStep> prepare_fill_step(const ir::Step& step, const ValueTable& values,
                                                      const StepDump& dump);

}  // namespace tensorjit::detail
