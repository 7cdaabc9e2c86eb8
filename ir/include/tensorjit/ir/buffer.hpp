// Storage: a block of bytes that tensors view. Owned (64-byte aligned, freed with the last
// reference) or external (from_blob: the owner callback runs when the last reference goes).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace tensorjit::ir {

class Buffer {
 public:
  static constexpr std::size_t kAlignment = 64;
  // From this size on, a buffer is mapped from the kernel rather than taken from the heap, and
  // kept for reuse when freed (below). It is glibc's own mmap threshold: below it the heap reuses
  // freed blocks itself; above it, glibc mapped and unmapped a fresh block for every eval (a
  // softmax of 512 x 1024 f32 faulted in all 512 pages of each 2 MiB result, every time).
  static constexpr std::size_t kMappedThreshold = std::size_t{128} << 10;
  // From this size on, mappings are 2 MiB-aligned and ask for huge pages: a 64 MiB tensor then
  // costs 32 page faults instead of 16384. Smaller mappings are rounded to 64 KiB.
  static constexpr std::size_t kHugeThreshold = std::size_t{4} << 20;

  // Zero-initialised, 64-byte aligned storage of `bytes` (a zero size is valid).
  static std::shared_ptr<Buffer> allocate(std::size_t bytes);
  // The same without the zeroes, for a result whose every byte is about to be written: a
  // recycled mapping is not cleared, a small one is not memset.
  static std::shared_ptr<Buffer> allocate_uninitialized(std::size_t bytes);
  // External memory: not copied; `release` (may be empty) runs once when nothing uses it any more.
  static std::shared_ptr<Buffer> wrap(void* data, std::size_t bytes, std::function<void()> release);
  // The same for memory whose contents never change while the buffer lives (a read-only file
  // mapping, or a private copy of a file's values): what the runtime derives from them (the GEMM's
  // packed panels of a weight, docs/gemm.md) may be kept for as long as the buffer lives.
  static std::shared_ptr<Buffer> wrap_constant(void* data, std::size_t bytes, std::function<void()> release);

  // The recycling of mapped buffers. A freed mapping is kept, up to `limit` bytes in all (oldest
  // returned to the kernel first), and handed to the next allocation of its size: an eval that
  // makes a 64 MiB result each time then writes memory that is already mapped, instead of paying
  // the kernel for faulting in and zeroing fresh pages. A limit of 0 keeps nothing.
  static void set_cache_limit(std::size_t limit);
  static std::size_t cache_limit();
  static std::size_t cached_bytes();  // held now, not in use by any tensor
  static void release_cache();        // returns every kept mapping to the kernel

  // Storage allocations of this process so far (allocate and allocate_uninitialized; wrap is not
  // one): how many, and their bytes. A mapping handed back by the recycling above counts too.
  struct Statistics {
    std::uint64_t allocations = 0;
    std::uint64_t bytes = 0;
  };
  static Statistics statistics();

  // Only Buffer makes buffers (the factories above); the key lets std::make_shared call the
  // constructor, so that a buffer and its reference count are one allocation.
  class MakeKey {
    friend class Buffer;
    MakeKey() = default;
  };
  Buffer(MakeKey, void* data, std::size_t bytes, std::function<void()> release, bool owned, bool constant = false)
      : data_(data), bytes_(bytes), owned_(owned), constant_(constant), release_(std::move(release)) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // Memory this library allocated (not from_blob's): the only kind Tensor::assign writes in place.
  bool owned() const { return owned_; }
  // Made by wrap_constant: nothing writes the contents while the buffer lives.
  bool constant() const { return constant_; }

  // How many times the contents were overwritten in place (Tensor::assign). An input node records
  // the version it was made at; a node whose buffer moved on reads values it was not built over,
  // and an eval that would read it throws (docs/contracts.md, contract 1, "assign").
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void bump_version() const { version_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  static std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed);
  void* data_;
  std::size_t bytes_;
  bool owned_;
  bool constant_;
  mutable std::atomic<std::uint64_t> version_{0};
  std::function<void()> release_;  // empty for heap storage (std::free); else recycles or calls the owner
};

}  // namespace tensorjit::ir
