// A row step's parts run one after the other on each chunk of rows (row_step.cpp): the row steps
// no row kernel takes.
#pragma once

#include "runtime/src/value_table.hpp"

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::detail {

void run_row_step(const ir::Step& step, ValueTable& values, const StepDump& dump);

}  // namespace tensorjit::detail
