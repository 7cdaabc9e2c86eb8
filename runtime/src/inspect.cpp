#include <tensorjit/functions.hpp>

#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/text.hpp>

#include "runtime/src/executor.hpp"
#include "runtime/src/jit_instance.hpp"
#include "runtime/src/packed_weights.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

std::string graph_text(const std::vector<Tensor>& tensors) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& t : tensors) nodes.push_back(detail::node_of(t, "graph_text"));
  return ir::print(detail::graph_for(nodes));
}

std::size_t cached_memory_bytes() { return ir::Buffer::cached_bytes(); }

void empty_cache() {
  ir::Buffer::release_cache();
  detail::release_packed_weights();
}

MemoryStatistics memory_statistics() {
  const ir::Buffer::Statistics s = ir::Buffer::statistics();
  return MemoryStatistics{s.allocations, s.bytes};
}

JitStatistics jit_statistics() {
  codegen::JitStats s = detail::jit().stats();
  return JitStatistics{s.compiles, s.memory_hits, s.disk_hits, s.disk_rejects, s.tier_ups};
}

void wait_for_tier_ups() { codegen::wait_for_tier_ups(); }

}  // namespace tensorjit
