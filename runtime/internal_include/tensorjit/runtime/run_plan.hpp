// Runs an ir::Plan outside any Tensor, for tools that show what a plan does (tensorjit-dump). An
// internal interface of the runtime: in the build tree only, never installed, not part of the API.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::internal {

// How long each step took, in plan order.
struct StepTimes {
  std::vector<std::chrono::nanoseconds> steps;
};

// One value per graph output, computed by running every step of the plan in order, its inputs'
// buffers as the plan's graph holds them. Kernels dump their LLVM IR and assembly into
// `dump_folder` when it is not empty; `times`, when given, receives each step's time.
std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times = nullptr);

}  // namespace tensorjit::internal
