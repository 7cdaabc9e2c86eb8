#include "runtime/src/packed_weights.hpp"

#include <map>
#include <mutex>
#include <new>
#include <tuple>

namespace tensorjit::detail {
namespace {

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

std::shared_ptr<void> allocate_panels(std::size_t bytes) {
  void* data = ::operator new(bytes, std::align_val_t{64});
  return std::shared_ptr<void>(data, [](void* p) { ::operator delete(p, std::align_val_t{64}); });
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
    entry.panels = allocate_panels(bytes);
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
}

}  // namespace tensorjit::detail
