// Runs a fused plan: each step reads materialised values and writes new ones. Internal to runtime/.
#pragma once

#include <chrono>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include "ir/passes/fuse.hpp"

namespace tensorjit::detail {

// The materialised values of a running plan, by node of the plan's graph.
class ValueTable {
 public:
  void put(const ir::Node* node, ir::Value value) { values_[node] = std::move(value); }
  void drop(const ir::Node* node) { values_.erase(node); }
  bool has(const ir::Node* node) const { return values_.count(node) != 0; }
  // The value of any node that needs no computation of its own here: an input, a constant (one
  // element with zero strides), a materialised node, or a view chain over one of these.
  ir::Value resolve(const ir::NodePtr& node) const;

 private:
  std::unordered_map<const ir::Node*, ir::Value> values_;
};

// Where a step writes its kernel dumps; empty when not dumping.
struct StepDump {
  std::filesystem::path folder;
  std::string kernel_name;
};

void run_loop_step(const ir::Step& step, ValueTable& values, const StepDump& dump);
void run_single_step(const ir::Step& step, ValueTable& values);

// How long each step took, in plan order (filled when asked for).
struct StepTimes {
  std::vector<std::chrono::nanoseconds> steps;
};

// One value per graph output, computed by running every step of the plan in order. Kernels dump
// into `dump_folder` when it is not empty.
std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times = nullptr);

}  // namespace tensorjit::detail
