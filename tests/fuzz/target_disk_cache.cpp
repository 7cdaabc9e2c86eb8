// The disk cache's reader takes files any earlier process (or anything else) left in the cache
// folder. Inputs of odd length have the checksum in their header made to match the payload the
// header describes, so that the fuzzer also explores the checks that follow the checksum.
#include <algorithm>
#include <string>

#include "codegen/src/jit/disk_cache.hpp"
#include "fuzz_target.hpp"
#include "memory_file.hpp"

namespace {

constexpr std::string_view kIdentity = "tensorjit fuzz identity\n";
constexpr std::size_t kHeaderSize = 32;  // magic, version, identity size, payload size, checksum

std::uint64_t little_endian(const std::string& bytes, std::size_t offset, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i) value |= std::uint64_t(std::uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

void fix_checksum(std::string& file) {
  if (file.size() < kHeaderSize) return;
  const std::uint64_t payload_start = kHeaderSize + little_endian(file, 12, 4);
  if (payload_start > file.size()) return;
  const std::uint64_t checksum = tensorjit::codegen::payload_checksum(
      std::string_view(file).substr(payload_start, little_endian(file, 16, 8)));
  for (int i = 0; i < 8; ++i) file[24 + i] = static_cast<char>((checksum >> (8 * i)) & 0xff);
}

}  // namespace

TJ_FUZZ_TARGET(disk_cache) {
  std::string file(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (file.size() % 2 == 1) fix_checksum(file);
  const tensorjit::fuzz::MemoryFile memory(
      {reinterpret_cast<const std::uint8_t*>(file.data()), file.size()});
  const auto read = tensorjit::codegen::read_cache_file(memory.path(), std::string(kIdentity));
  // A file is either used or rejected with a reason, never both.
  TJ_FUZZ_REQUIRE(!(read.object && !read.rejection.empty()));
  if (read.object) TJ_FUZZ_REQUIRE(file.size() == kHeaderSize + kIdentity.size() + read.object->size());
}
