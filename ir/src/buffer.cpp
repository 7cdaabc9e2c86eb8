#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/check.hpp>

#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>

namespace tensorjit::ir {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// From this size on, a buffer is mapped rather than taken from the heap.
constexpr std::size_t kMappedThreshold = 2 * kHugePage;

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

}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) {
  if (bytes >= kMappedThreshold) {
    const std::size_t length = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    TJ_CHECK(length >= bytes) << "allocation of " << bytes << " bytes is too large";
    void* data = map_huge(length);
    TJ_CHECK(data != nullptr) << "out of memory allocating " << bytes << " bytes for a tensor";
    return std::shared_ptr<Buffer>(new Buffer(data, bytes, [data, length] { munmap(data, length); }));
  }
  // aligned_alloc needs a multiple of the alignment, and a non-null result even for zero bytes.
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  TJ_CHECK(rounded >= bytes) << "allocation of " << bytes << " bytes is too large";
  void* data = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  TJ_CHECK(data != nullptr) << "out of memory allocating " << bytes << " bytes for a tensor";
  std::memset(data, 0, rounded == 0 ? kAlignment : rounded);
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, {}));
}

std::shared_ptr<Buffer> Buffer::wrap(void* data, std::size_t bytes, std::function<void()> release) {
  if (!release) release = [] {};
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, std::move(release)));
}

Buffer::~Buffer() {
  if (release_) {
    release_();
  } else {
    std::free(data_);
  }
}

}  // namespace tensorjit::ir
