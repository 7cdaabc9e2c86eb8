#include "ir/passes/fuse_scans.hpp"

#include "ir/passes/absorb_neighbours.hpp"

namespace tensorjit::ir {

Plan fuse_scans(const Plan& plan) {
  NeighbourAbsorber absorber(plan);
  std::vector<Step> steps(plan.steps);
  for (auto& step : steps)
    if (step.kind == Step::Kind::single && is_scan(step.nodes.front()->op()))
      step = absorber.absorb(Step::Kind::scan, step.nodes.front());
  return absorber.result(std::move(steps));
}

}  // namespace tensorjit::ir
