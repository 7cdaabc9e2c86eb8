// The kinds of step a plan holds (ir::Step::Kind), as one table: how the runtime prepares each
// kind once per plan and what its kernel dumps are called. Adding a kind of step is a row here
// plus the kind's own files (<kind>_step.hpp/.cpp: its PreparedStep and its prepare function).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include <tensorjit/ir/plan.hpp>

#include "runtime/src/value_table.hpp"

namespace tensorjit::detail {

// What running one step needs beyond its buffers: compiled kernels, the values it reads in
// argument order, collapsed strides. It depends only on the plan (whose layouts are fixed), so an
// executable prepares it once and reuses it for every run, from any number of threads at once.
class PreparedStep {
 public:
  virtual ~PreparedStep() = default;
  // Computes the step's outputs into `values`, reading its inputs from there.
  virtual void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const = 0;
};

using PrepareStep = std::shared_ptr<const PreparedStep> (*)(const ir::Step& step, const ValueTable& values,
                                                             const StepDump& dump);

struct StepKind {
  ir::Step::Kind kind;
  std::string_view dump_suffix;  // its kernel dumps are kernel-<step><suffix>.*
  // Compiles (or finds) the step's kernels; `values` holds every value the step reads.
  PrepareStep prepare;
};

const StepKind& step_kind(ir::Step::Kind kind);

// Per step of a plan, what an earlier run prepared (null until then). Shared by concurrent runs.
// A slot is set once, by the first run to prepare the step; it then never changes while the
// cache lives, so a run reads it as a plain pointer with one acquire load. (Not an
// std::atomic<std::shared_ptr>: libstdc++ 12's load() of that type releases its internal lock
// with a relaxed store, so a run's read and another run's later store race; ThreadSanitizer
// reports it, tests/runtime/test_concurrency.cpp.)
class PlanCache {
 public:
  explicit PlanCache(const ir::Plan& plan)
      : owned_(plan.steps.size()), slots_(plan.steps.size()), last_read_(ir::values_last_read(plan)) {}
  const PreparedStep* find(std::size_t step) const { return slots_[step].load(std::memory_order_acquire); }
  // ir::values_last_read of the plan, computed once.
  const std::vector<const ir::Node*>& last_read(std::size_t step) const { return last_read_[step]; }
  // Keeps `prepared` for the step unless another run kept one first.
  void keep(std::size_t step, std::shared_ptr<const PreparedStep> prepared) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (owned_[step]) return;
    owned_[step] = std::move(prepared);
    slots_[step].store(owned_[step].get(), std::memory_order_release);
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<const PreparedStep>> owned_;
  std::vector<std::atomic<const PreparedStep*>> slots_;
  const std::vector<std::vector<const ir::Node*>> last_read_;
};

}  // namespace tensorjit::detail
