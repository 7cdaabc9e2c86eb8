#include "runtime/src/packed_weights.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <tuple>

namespace tensorjit::detail {
namespace {

// Panels live in slabs of at least kSlabBytes, 2 MiB aligned and backed by huge pages where the
// kernel allows (madvise): the products stream a model's panels from memory on every forward pass
// (MiniLM's 42.5 MB do not stay in cache), and with 4 KiB pages a 16-row product over a layer's
// weight ran 10-20 % slower (docs/gemm.md, "Packed ahead of time"). Panels are placed one after the
// other in the current slab; a slab is unmapped when none of its panels is in use any more.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kSlabBytes = std::size_t{16} << 20;

struct Slab {
  explicit Slab(std::size_t bytes) : size(bytes) {
    void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    // Keep the 2 MiB-aligned part, return the rest.
    auto* start = static_cast<char*>(mapped);
    auto* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(start) + kHugePage - 1) / kHugePage *
                                            kHugePage);
    if (aligned > start) munmap(start, static_cast<std::size_t>(aligned - start));
    const std::size_t tail = kHugePage - static_cast<std::size_t>(aligned - start);
    if (tail > 0) munmap(aligned + size, tail);
    base = aligned;
#if defined(MADV_HUGEPAGE)
    madvise(base, size, MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
  }
  ~Slab() { munmap(base, size); }
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;
  char* base = nullptr;
  std::size_t size = 0;
  std::size_t used = 0;
};

// `bytes` of panels, 64-byte aligned, in `current` or a new slab (then the current one).
std::shared_ptr<void> allocate_panels(std::shared_ptr<Slab>& current, std::size_t bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (current == nullptr || current->size - current->used < rounded)
    current = std::make_shared<Slab>(std::max(kSlabBytes, (rounded + kHugePage - 1) / kHugePage * kHugePage));
  void* data = current->base + current->used;
  current->used += rounded;
  return std::shared_ptr<void>(current, data);  // keeps the slab mapped
}

// What identifies a packing: the buffer, where and how the view reads it, the sizes, the element
// type and the kernel width (the panels are NR wide for the VECTOR_BITS in force).
using Key = std::tuple<const ir::Buffer*, const void*, std::int64_t, std::int64_t, int, std::int64_t, std::int64_t,
                       std::size_t, int, int>;

struct Entry {
  std::weak_ptr<ir::Buffer> buffer;  // expired, or another buffer at the same address: stale
  std::shared_ptr<void> panels;
  int panel_width = 0;
  std::size_t bytes = 0;
};

struct Cache {
  std::mutex mutex;
  std::map<Key, Entry> entries;
  std::size_t bytes = 0;
  std::shared_ptr<Slab> slab;  // where the next panels go

  void erase(std::map<Key, Entry>::iterator it) {
    bytes -= it->second.bytes;
    entries.erase(it);
  }
  // Drops the entries of buffers that are gone.
  void sweep() {
    for (auto it = entries.begin(); it != entries.end();) {
      auto next = std::next(it);
      if (it->second.buffer.expired()) erase(it);
      it = next;
    }
  }
};

Cache& cache() {
  static Cache* instance = new Cache;  // never destroyed: products may run during static destruction
  return *instance;
}

}  // namespace

template <typename T>
std::shared_ptr<const void> packed_weight(const std::shared_ptr<ir::Buffer>& buffer,
                                          const kernels::MatrixView<T>& view, std::int64_t k, std::int64_t n,
                                          const kernels::GemmOptions& options, kernels::PackedB<T>& packed) {
  if (buffer == nullptr || !buffer->constant() || k == 0 || n == 0) return nullptr;
  const void* origin = view.storage == kernels::Storage::native ? static_cast<const void*>(view.data)
                                                                 : static_cast<const void*>(view.narrow);
  const Key key{buffer.get(), origin, view.row_stride, view.col_stride, static_cast<int>(view.storage), k, n,
                sizeof(T), options.vector_bits, static_cast<int>(options.instruction_set)};
  Cache& c = cache();
  const std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.entries.find(key);
  if (it != c.entries.end() && it->second.buffer.lock() != buffer) {  // a former buffer's
    c.erase(it);
    it = c.entries.end();
  }
  if (it == c.entries.end()) {
    const std::int64_t elements = kernels::packed_b_elements(k, n, sizeof(T) == 8, options);
    const std::size_t bytes = static_cast<std::size_t>(elements) * sizeof(T);
    c.sweep();
    if (c.bytes + bytes > kPackedWeightsLimit) return nullptr;
    Entry entry;
    entry.buffer = buffer;
    entry.panels = allocate_panels(c.slab, bytes);
    entry.panel_width = kernels::pack_b(view, k, n, options, static_cast<T*>(entry.panels.get()));
    entry.bytes = bytes;
    it = c.entries.emplace(key, std::move(entry)).first;
    c.bytes += bytes;
  }
  packed.data = static_cast<const T*>(it->second.panels.get());
  packed.panel_width = it->second.panel_width;
  return it->second.panels;
}

template std::shared_ptr<const void> packed_weight<float>(const std::shared_ptr<ir::Buffer>&,
                                                          const kernels::MatrixView<float>&, std::int64_t,
                                                          std::int64_t, const kernels::GemmOptions&,
                                                          kernels::PackedB<float>&);
template std::shared_ptr<const void> packed_weight<double>(const std::shared_ptr<ir::Buffer>&,
                                                           const kernels::MatrixView<double>&, std::int64_t,
                                                           std::int64_t, const kernels::GemmOptions&,
                                                           kernels::PackedB<double>&);

std::size_t packed_weights_bytes() {
  Cache& c = cache();
  const std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

void release_packed_weights() {
  Cache& c = cache();
  const std::lock_guard<std::mutex> lock(c.mutex);
  c.entries.clear();
  c.bytes = 0;
  c.slab.reset();
}

}  // namespace tensorjit::detail
