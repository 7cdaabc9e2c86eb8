#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/check.hpp>

#include <cstdlib>
#include <cstring>

#include "mapping_cache.hpp"

namespace tensorjit::ir {
namespace {

std::atomic<std::uint64_t> allocation_count{0}, allocation_bytes{0};

}  // namespace

Buffer::Statistics Buffer::statistics() {
  return {allocation_count.load(std::memory_order_relaxed), allocation_bytes.load(std::memory_order_relaxed)};
}

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) { return allocate(bytes, true); }

std::shared_ptr<Buffer> Buffer::allocate_uninitialized(std::size_t bytes) { return allocate(bytes, false); }

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes, bool zeroed) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  allocation_bytes.fetch_add(bytes, std::memory_order_relaxed);
  if (bytes >= kMappedThreshold) {
    const bool huge = bytes >= kHugeThreshold;
    const std::size_t granule = huge ? mapping_cache::kHugePage : mapping_cache::kSmallGranule;
    const std::size_t length = (bytes + granule - 1) / granule * granule;
    TJ_CHECK(length >= bytes) << "allocation of " << bytes << " bytes is too large";
    bool recycled = false;
    void* data = mapping_cache::take(length, huge, &recycled);
    TJ_CHECK(data != nullptr) << "out of memory allocating " << bytes << " bytes for a tensor";
    if (recycled && zeroed) std::memset(data, 0, bytes);
    return std::make_shared<Buffer>(MakeKey{}, data, bytes, [data, length] { mapping_cache::give_back(data, length); },
                                    true);
  }
  // aligned_alloc needs a multiple of the alignment, and a non-null result even for zero bytes.
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  TJ_CHECK(rounded >= bytes) << "allocation of " << bytes << " bytes is too large";
  if (rounded == 0) rounded = kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded);
  TJ_CHECK(data != nullptr) << "out of memory allocating " << bytes << " bytes for a tensor";
  if (zeroed) std::memset(data, 0, rounded);
  return std::make_shared<Buffer>(MakeKey{}, data, bytes, std::function<void()>{}, true);
}

std::shared_ptr<Buffer> Buffer::wrap(void* data, std::size_t bytes, std::function<void()> release) {
  if (!release) release = [] {};
  return std::make_shared<Buffer>(MakeKey{}, data, bytes, std::move(release), false);
}

std::shared_ptr<Buffer> Buffer::wrap_constant(void* data, std::size_t bytes, std::function<void()> release) {
  if (!release) release = [] {};
  return std::make_shared<Buffer>(MakeKey{}, data, bytes, std::move(release), false, true);
}

void Buffer::set_cache_limit(std::size_t limit) { mapping_cache::set_limit(limit); }
std::size_t Buffer::cache_limit() { return mapping_cache::limit(); }
std::size_t Buffer::cached_bytes() { return mapping_cache::held(); }
void Buffer::release_cache() { mapping_cache::release_all(); }

Buffer::~Buffer() {
  if (release_) {
    release_();
  } else {
    std::free(data_);
  }
}

}  // namespace tensorjit::ir
