#include "mapping_cache.hpp"

#include <cstdint>
#include <list>
#include <mutex>
#include <sys/mman.h>
#include <utility>

namespace tensorjit::ir::mapping_cache {
namespace {

// Anonymous memory aligned to a huge page, with transparent huge pages asked for (the kernel's
// "madvise" mode, Debian's default). Zero-filled by the kernel. Null if the kernel refuses.
void* map_huge(std::size_t length) {
  void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  std::uintptr_t end = start + length + kHugePage;
  if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

// Page-aligned anonymous memory, zero-filled by the kernel. Null if the kernel refuses.
void* map_plain(std::size_t length) {
  void* data = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return data == MAP_FAILED ? nullptr : data;
}

// The default limit: enough for the working set of a typical loop of evals over tensors of a few
// hundred MiB, small against the memory of the machines we run on.
constexpr std::size_t kDefaultLimit = std::size_t{1} << 30;

struct Cache {
  std::mutex mutex;
  std::list<std::pair<void*, std::size_t>> kept;  // most recently given back first
  std::size_t held = 0;
  std::size_t limit = kDefaultLimit;

  // Unmaps the oldest kept mappings until `held` is at most `target`. Caller holds the mutex.
  void trim(std::size_t target) {
    while (held > target) {
      auto [data, length] = kept.back();
      kept.pop_back();
      held -= length;
      munmap(data, length);
    }
  }
};

// Never destroyed: buffers may be freed by static destructors after this file's would have run.
Cache& cache() {
  static Cache* const instance = new Cache;
  return *instance;
}

}  // namespace

void* take(std::size_t length, bool huge, bool* recycled) {
  Cache& c = cache();
  {
    std::lock_guard lock(c.mutex);
    for (auto it = c.kept.begin(); it != c.kept.end(); ++it) {
      if (it->second != length) continue;
      void* data = it->first;
      c.held -= length;
      c.kept.erase(it);
      *recycled = true;
      return data;
    }
  }
  *recycled = false;
  return huge ? map_huge(length) : map_plain(length);
}

void give_back(void* data, std::size_t length) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (length > c.limit) {
    munmap(data, length);
    return;
  }
  c.trim(c.limit - length);
  c.kept.emplace_front(data, length);
  c.held += length;
}

void set_limit(std::size_t limit) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.limit = limit;
  c.trim(limit);
}

std::size_t limit() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  return c.limit;
}

std::size_t held() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  return c.held;
}

void release_all() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.trim(0);
}

}  // namespace tensorjit::ir::mapping_cache
