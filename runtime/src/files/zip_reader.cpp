#include "runtime/src/files/zip_reader.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::files {
namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::size_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30;

// Reads little-endian fields of a record whose bytes the caller checked to be inside the file.
class Record {
 public:
  explicit Record(const std::byte* at) : at_(at) {}
  std::uint16_t u16(std::size_t field) const {
    return static_cast<std::uint16_t>(std::to_integer<unsigned>(at_[field]) | std::to_integer<unsigned>(at_[field + 1]) << 8);
  }
  std::uint32_t u32(std::size_t field) const { return u16(field) | static_cast<std::uint32_t>(u16(field + 2)) << 16; }

 private:
  const std::byte* at_;
};

// The end-of-central-directory record: the last signature within the final 64 KiB + 22 bytes
// (a trailing comment may follow it).
std::size_t find_end_record(const std::byte* data, std::size_t size, const std::string& where) {
  TJ_CHECK(size >= kEndSize) << where << ": " << (size == 0 ? "the file is empty" : "too short")
                             << ", not a zip archive (.npz)";
  const std::size_t lowest = size - kEndSize > 0xffff ? size - kEndSize - 0xffff : 0;
  for (std::size_t at = size - kEndSize + 1; at-- > lowest;)
    if (Record(data + at).u32(0) == kEndSignature) return at;
  TJ_FAIL() << where << ": not a zip archive (.npz): no end of central directory record";
}

}  // namespace

std::vector<ZipMember> read_zip_members(const std::byte* data, std::size_t size, const std::string& where) {
  const std::size_t end_at = find_end_record(data, size, where);
  const Record end(data + end_at);
  const std::uint16_t count = end.u16(10);
  const std::uint32_t directory_size = end.u32(12), directory_offset = end.u32(16);
  TJ_CHECK(count != 0xffff && directory_size != 0xffffffff && directory_offset != 0xffffffff)
      << where << ": zip64 archives are not supported; save the arrays in smaller .npz files";
  TJ_CHECK(end.u16(4) == 0 && end.u16(6) == 0 && end.u16(8) == count)
      << where << ": multi-part zip archives are not supported";
  TJ_CHECK(std::uint64_t{directory_offset} + directory_size <= end_at)
      << where << ": corrupt zip archive: the central directory lies outside the file";

  std::vector<ZipMember> members;
  std::size_t at = directory_offset;
  const std::size_t directory_end = std::size_t{directory_offset} + directory_size;
  for (std::uint16_t i = 0; i < count; ++i) {
    TJ_CHECK(directory_end - at >= kCentralSize && Record(data + at).u32(0) == kCentralSignature)
        << where << ": corrupt zip archive: central directory entry " << i << " is malformed";
    const Record entry(data + at);
    const std::size_t name_length = entry.u16(28), extra_length = entry.u16(30), comment_length = entry.u16(32);
    TJ_CHECK(directory_end - at - kCentralSize >= name_length + extra_length + comment_length)
        << where << ": corrupt zip archive: central directory entry " << i << " runs past the directory";
    ZipMember member;
    member.name.assign(reinterpret_cast<const char*>(data + at + kCentralSize), name_length);
    const std::uint16_t flags = entry.u16(8);
    member.method = entry.u16(10);
    member.crc32 = entry.u32(16);
    member.compressed_size = entry.u32(20);
    member.size = entry.u32(24);
    const std::uint32_t local_offset = entry.u32(42);
    TJ_CHECK(member.compressed_size != 0xffffffff && member.size != 0xffffffff && local_offset != 0xffffffff)
        << where << ": member '" << member.name << "' needs zip64, which is not supported";
    TJ_CHECK((flags & 1) == 0) << where << ": member '" << member.name << "' is encrypted";
    TJ_CHECK(member.method == 0 || member.method == 8)
        << where << ": member '" << member.name << "' uses compression method " << member.method
        << "; only stored (0) and deflated (8) members are supported";
    // The data follows the local header, whose name and extra field may differ from the central
    // directory's (numpy's writer puts a zip64 field there alone).
    TJ_CHECK(local_offset <= end_at && end_at - local_offset >= kLocalSize &&
             Record(data + local_offset).u32(0) == kLocalSignature)
        << where << ": corrupt zip archive: member '" << member.name << "' has no local header";
    const Record local(data + local_offset);
    member.offset = std::uint64_t{local_offset} + kLocalSize + local.u16(26) + local.u16(28);
    TJ_CHECK(member.offset <= size && size - member.offset >= member.compressed_size)
        << where << ": truncated: member '" << member.name << "' (" << member.compressed_size
        << " bytes) runs past the end of the file";
    members.push_back(std::move(member));
    at += kCentralSize + name_length + extra_length + comment_length;
  }
  return members;
}

}  // namespace tensorjit::files
