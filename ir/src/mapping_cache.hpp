// Huge-page mappings for large buffers, and the cache of freed ones (Buffer's recycling).
// Internal to ir/src.
#pragma once

#include <cstddef>

namespace tensorjit::ir::mapping_cache {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kSmallGranule = std::size_t{64} << 10;  // lengths of mappings below huge ones

// `length` bytes of anonymous memory: a kept mapping of that length if there is one (`*recycled`
// set, contents left from its last use), else a fresh one from the kernel, zero-filled, aligned
// to a huge page with huge pages asked for if `huge` (then length is a multiple of kHugePage),
// page-aligned otherwise. Null if the kernel refuses.
void* take(std::size_t length, bool huge, bool* recycled);
// Gives a mapping from take() back: kept for reuse if it fits under the limit, else unmapped.
void give_back(void* data, std::size_t length);

void set_limit(std::size_t limit);
std::size_t limit();
std::size_t held();
void release_all();

}  // namespace tensorjit::ir::mapping_cache
