#include "runtime/src/plan_runner.hpp"

#include <fmt/format.h>

namespace tensorjit::detail {

std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times, ValueTable& values, PlanCache* cache) {
  // Each materialised value is dropped after the last step that reads it (or kept if an output).
  // A matmul reading a widening cast no step computes reads the 16-bit value under it
  // (resolve_product_operand; ir::for_each_read): that value lives until the matmul's step too.
  std::vector<std::vector<const ir::Node*>> computed;
  if (!cache) computed = ir::values_last_read(plan);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const ir::Step& step = plan.steps[s];
    const auto start = std::chrono::steady_clock::now();
    const StepKind& kind = step_kind(step.kind);
    StepDump dump;
    if (!dump_folder.empty()) dump = {dump_folder, fmt::format("kernel-{:03}{}", s, kind.dump_suffix)};
    // A dump asks for the kernels to be compiled again, so that their files are written.
    const PreparedStep* prepared = cache && dump.folder.empty() ? cache->find(s) : nullptr;
    std::shared_ptr<const PreparedStep> fresh;  // what this run prepared, alive for its launch
    if (!prepared) {
      fresh = kind.prepare(step, values, dump);
      prepared = fresh.get();
      if (cache) cache->keep(s, fresh);
    }
    prepared->launch(step, values, dump);
    if (times) times->steps.push_back(std::chrono::steady_clock::now() - start);
    for (const ir::Node* last : cache ? cache->last_read(s) : computed[s]) values.drop(last);
  }
  std::vector<ir::Value> outputs;
  for (const auto& out : plan.graph.outputs) outputs.push_back(values.resolve(out));
  return outputs;
}

}  // namespace tensorjit::detail

namespace tensorjit::internal {

std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder, StepTimes* times) {
  detail::ValueTable values;
  return detail::run_plan(plan, dump_folder, times, values);
}

}  // namespace tensorjit::internal
