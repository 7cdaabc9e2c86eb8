// The members of a zip archive, read from its central directory (the way .npz files are read).
// zip64 archives, encrypted members and methods other than stored (0) and deflated (8) are refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tensorjit::files {

struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;  // uncompressed
  std::uint64_t offset = 0;  // of the member's data in the archive
};

// Every offset and size is checked to lie inside [data, data + size) before it is read; throws
// Error starting with `where` otherwise.
std::vector<ZipMember> read_zip_members(const std::byte* data, std::size_t size, const std::string& where);

}  // namespace tensorjit::files
