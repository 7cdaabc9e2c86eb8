// Runs a fused plan: each step reads materialised values and writes new ones. Internal to runtime/.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

#include <tensorjit/ir/plan.hpp>
#include <tensorjit/runtime/run_plan.hpp>

#include "runtime/src/step_kind.hpp"
#include "runtime/src/value_table.hpp"

namespace tensorjit::detail {

using internal::StepTimes;

// One value per graph output, computed by running every step of the plan in order. Kernels dump
// into `dump_folder` when it is not empty.
// `values` may hold bindings already (ValueTable::bind); `cache`, when given, keeps prepared steps.
std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder, StepTimes* times,
                                ValueTable& values, PlanCache* cache = nullptr);

}  // namespace tensorjit::detail
