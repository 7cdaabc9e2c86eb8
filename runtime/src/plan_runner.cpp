#include "runtime/src/plan_runner.hpp"

#include <fmt/format.h>

#include <tensorjit/ir/node_map.hpp>
#include <tensorjit/ir/view.hpp>

namespace tensorjit::detail {

std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times, ValueTable values, PlanCache* cache) {
  // Each materialised value is dropped after the last step that reads it (or kept if an output).
  ir::NodeMap<std::size_t> last_reader;
  // A matmul reading a widening cast no step computes reads the 16-bit value under it
  // (resolve_product_operand; ir::for_each_read): that value lives until the matmul's step too.
  auto note_reads = [&](const ir::NodePtr& node, std::size_t step) {
    last_reader[ir::view_base(node.get())] = step;
  };
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes)
      ir::for_each_read(*node, [&](const ir::NodePtr& in) { note_reads(in, s); });
  for (const auto& out : plan.graph.outputs) note_reads(out, plan.steps.size());

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
    for (const auto& node : step.nodes)
      ir::for_each_read(*node, [&](const ir::NodePtr& in) {
        const ir::Node* n = ir::view_base(in.get());
        if (*last_reader.find(n) == s) values.drop(n);
      });
  }
  std::vector<ir::Value> outputs;
  for (const auto& out : plan.graph.outputs) outputs.push_back(values.resolve(out));
  return outputs;
}

}  // namespace tensorjit::detail

namespace tensorjit::internal {

std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder, StepTimes* times) {
  return detail::run_plan(plan, dump_folder, times);
}

}  // namespace tensorjit::internal
