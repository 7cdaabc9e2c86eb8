#include "ir/passes/fuse_reductions.hpp"

#include "ir/passes/absorb_neighbours.hpp"

namespace tensorjit::ir {

Plan fuse_reductions(const Plan& plan) {
  NeighbourAbsorber absorber(plan);
  std::vector<Step> steps(plan.steps);
  // The reductions the JIT lowers (codegen/reduce_kernel.hpp): all of them.
  for (auto& step : steps)
    if (step.kind == Step::Kind::single && is_reduce(step.nodes.front()->op()))
      step = absorber.absorb(Step::Kind::reduce, step.nodes.front());
  return absorber.result(std::move(steps));
}

}  // namespace tensorjit::ir
