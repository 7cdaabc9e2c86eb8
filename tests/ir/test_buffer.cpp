// Buffers: alignment, zeroing, and the recycling of large mappings (ir/src/mapping_cache.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>

#include <tensorjit/ir/buffer.hpp>

using tensorjit::ir::Buffer;

namespace {

constexpr std::size_t kLarge = Buffer::kHugeThreshold + 12345;     // rounds up to 3 huge pages
constexpr std::size_t kMedium = Buffer::kMappedThreshold + 70000;  // rounds up to 4 x 64 KiB

bool all_zero(const Buffer& buffer) {
  const auto* bytes = static_cast<const unsigned char*>(buffer.data());
  for (std::size_t i = 0; i < buffer.bytes(); ++i)
    if (bytes[i] != 0) return false;
  return true;
}

// Restores the process's limit and empties the cache around each test that changes them.
struct CacheScope {
  std::size_t saved = Buffer::cache_limit();
  CacheScope() { Buffer::release_cache(); }
  ~CacheScope() {
    Buffer::set_cache_limit(saved);
    Buffer::release_cache();
  }
};

}  // namespace

TEST_SUITE("ir") {

TEST_CASE("buffers are aligned and zeroed, small and large, and a zero size is valid") {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4099}, kMedium, kLarge}) {
    auto buffer = Buffer::allocate(bytes);
    CHECK(buffer->bytes() == bytes);
    CHECK(buffer->data() != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(buffer->data()) % Buffer::kAlignment == 0);
    CHECK(all_zero(*buffer));
  }
}

TEST_CASE("a freed large buffer is reused by the next allocation of its size, zeroed when asked") {
  CacheScope scope;
  Buffer::set_cache_limit(std::size_t{64} << 20);
  void* first = nullptr;
  {
    auto buffer = Buffer::allocate_uninitialized(kLarge);
    first = buffer->data();
    std::memset(buffer->data(), 0x5a, buffer->bytes());
  }
  CHECK(Buffer::cached_bytes() == 3 * (std::size_t{2} << 20));
  {
    auto again = Buffer::allocate(kLarge - 100);  // same rounded length
    CHECK(again->data() == first);
    CHECK(Buffer::cached_bytes() == 0);
    CHECK(all_zero(*again));  // recycled memory is cleared for a zeroed allocation
    std::memset(again->data(), 0x5a, again->bytes());
  }
  auto uninitialized = Buffer::allocate_uninitialized(kLarge);
  CHECK(uninitialized->data() == first);
  CHECK(static_cast<unsigned char*>(uninitialized->data())[7] == 0x5a);  // not cleared: the point of it
}

TEST_CASE("a freed medium buffer (below huge pages) is recycled the same way") {
  CacheScope scope;
  Buffer::set_cache_limit(std::size_t{64} << 20);
  void* first = nullptr;
  {
    auto buffer = Buffer::allocate_uninitialized(kMedium);
    first = buffer->data();
    std::memset(buffer->data(), 0x5a, buffer->bytes());
  }
  CHECK(Buffer::cached_bytes() == 4 * (std::size_t{64} << 10));
  {
    auto again = Buffer::allocate(kMedium + 100);  // same rounded length
    CHECK(again->data() == first);
    CHECK(all_zero(*again));
  }
  auto below = Buffer::allocate_uninitialized(Buffer::kMappedThreshold - 64);  // from the heap
  CHECK(below->data() != first);
  CHECK(Buffer::cached_bytes() == 4 * (std::size_t{64} << 10));
}

TEST_CASE("a buffer of another rounded size is not reused, and a fresh mapping is zeroed") {
  CacheScope scope;
  Buffer::set_cache_limit(std::size_t{64} << 20);
  Buffer::allocate_uninitialized(kLarge).reset();
  auto other = Buffer::allocate_uninitialized(kLarge + (std::size_t{2} << 20));
  CHECK(Buffer::cached_bytes() == 3 * (std::size_t{2} << 20));  // the first one is still kept
  CHECK(all_zero(*other));
}

TEST_CASE("the cache keeps at most its limit, returning the oldest mappings first") {
  CacheScope scope;
  const std::size_t huge = std::size_t{2} << 20;
  Buffer::set_cache_limit(7 * huge);
  auto a = Buffer::allocate_uninitialized(3 * huge);
  auto b = Buffer::allocate_uninitialized(3 * huge);
  auto c = Buffer::allocate_uninitialized(4 * huge);
  void* b_data = b->data();
  a.reset();
  b.reset();
  CHECK(Buffer::cached_bytes() == 6 * huge);
  c.reset();  // 4 more: a, the oldest, goes back to the kernel
  CHECK(Buffer::cached_bytes() == 7 * huge);
  auto again = Buffer::allocate_uninitialized(3 * huge);
  CHECK(again->data() == b_data);
  CHECK(Buffer::cached_bytes() == 4 * huge);

  Buffer::set_cache_limit(huge);  // lowering the limit trims at once
  CHECK(Buffer::cached_bytes() == 0);
  again.reset();  // larger than the whole limit: unmapped, not kept
  CHECK(Buffer::cached_bytes() == 0);
}

TEST_CASE("a limit of zero keeps nothing, and release_cache empties the cache") {
  CacheScope scope;
  Buffer::set_cache_limit(0);
  Buffer::allocate(kLarge).reset();
  CHECK(Buffer::cached_bytes() == 0);
  Buffer::set_cache_limit(std::size_t{64} << 20);
  Buffer::allocate(kLarge).reset();
  CHECK(Buffer::cached_bytes() > 0);
  Buffer::release_cache();
  CHECK(Buffer::cached_bytes() == 0);
}

}  // TEST_SUITE
