// A scatter step: one scatter_add (index_add, scatter_add), its base copied into a fresh contiguous
// result and its values added by kernels::scatter_add_rows in one fixed order (scatter_step.cpp,
// docs/indexing.md).
#pragma once

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Nothing is compiled: kernels::scatter_add_rows is precompiled code.
std::shared_ptr<const PreparedStep> prepare_scatter_step(const ir::Step& step, const ValueTable& values,
                                                         const StepDump& dump);

}  // namespace tensorjit::detail
