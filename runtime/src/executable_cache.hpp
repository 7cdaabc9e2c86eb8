// Plans are cached by the structure of the graph they run: the same ops, dtypes, shapes, layouts
// and constants give the same plan, whatever buffers the inputs hold. A cached plan's inputs are
// "slots" (buffers with no memory) that each run binds to the actual buffers, and its loop steps
// keep their compiled kernels, so a repeated eval does no planning and no kernel lookup.
#pragma once

#include <memory>
#include <vector>

#include "runtime/src/plan_runner.hpp"

namespace tensorjit::detail {

struct Executable {
  explicit Executable(ir::Plan p, std::vector<std::shared_ptr<ir::Buffer>> s)
      : plan(std::move(p)), slots(std::move(s)), cache(plan) {}
  ir::Plan plan;
  std::vector<std::shared_ptr<ir::Buffer>> slots;  // one per graph input, in topological order
  PlanCache cache;
};

// The executable for `graph`, whose nodes in topological order (ir::topological_order) are
// `order` (built and cached on a miss), and, in `leaves`, what its slots stand for, in their
// order: the graph's input nodes and the constants its kernels read as arguments (their values
// are bound at each run, bind_leaves), as plain pointers: `graph` holds them for the run, and a
// shared_ptr copy each would cost two atomic operations per leaf per eval. Thread safe; the cache
// keeps the most recently used kExecutables.
inline constexpr std::size_t kExecutables = 256;
std::shared_ptr<Executable> executable_for(const ir::Graph& graph, const std::vector<ir::NodePtr>& order,
                                           std::vector<const ir::Node*>& leaves);

// Binds each slot of `executable` to what `leaves` (from executable_for) holds for this run: an
// input's buffer, or a one-element buffer holding an argument constant's value. The input nodes
// must outlive `values`, which reads their buffers without copying the pointers.
void bind_leaves(const Executable& executable, const std::vector<const ir::Node*>& leaves, ValueTable& values);

}  // namespace tensorjit::detail
