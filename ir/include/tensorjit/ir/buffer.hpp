// Storage: a block of bytes that tensors view. Owned (64-byte aligned, freed with the last
// reference) or external (from_blob: the owner callback runs when the last reference goes).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace tensorjit::ir {

class Buffer {
 public:
  static constexpr std::size_t kAlignment = 64;

  // Zero-initialised, 64-byte aligned storage of `bytes` (a zero size is valid). Large buffers
  // are mapped from the kernel in 2 MiB-aligned huge pages where it allows them: the kernel zeroes
  // them anyway, and a 64 MiB tensor then costs 32 page faults instead of 16384.
  static std::shared_ptr<Buffer> allocate(std::size_t bytes);
  // External memory: not copied; `release` (may be empty) runs once when nothing uses it any more.
  static std::shared_ptr<Buffer> wrap(void* data, std::size_t bytes, std::function<void()> release);

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Buffer(void* data, std::size_t bytes, std::function<void()> release)
      : data_(data), bytes_(bytes), release_(std::move(release)) {}
  void* data_;
  std::size_t bytes_;
  std::function<void()> release_;  // empty for heap storage (std::free); else unmaps or calls the owner
};

}  // namespace tensorjit::ir
