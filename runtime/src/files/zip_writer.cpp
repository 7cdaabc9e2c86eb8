#include "runtime/src/files/zip_writer.hpp"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::files {
namespace {

constexpr std::uint16_t kVersion = 20;    // 2.0: deflate
constexpr std::uint16_t kDosDate = 0x21;  // 1980-01-01: the archive does not depend on the clock
constexpr std::uint16_t kPaddingId = 0xd935;  // zipalign's extra field, which readers skip
constexpr std::uint64_t kLimit = std::numeric_limits<std::uint32_t>::max();

std::uint32_t crc_of(const std::vector<std::string_view>& pieces) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::string_view piece : pieces)
    for (std::size_t done = 0; done < piece.size();) {  // crc32 takes at most 4 GiB a call
      const auto chunk = static_cast<uInt>(std::min<std::size_t>(piece.size() - done, 1u << 30));
      crc = crc32(crc, reinterpret_cast<const Bytef*>(piece.data() + done), chunk);
      done += chunk;
    }
  return static_cast<std::uint32_t>(crc);
}

// Raw deflate (no zlib header), as zip stores it.
std::string deflate_pieces(const std::vector<std::string_view>& pieces, const std::string& name) {
  z_stream stream{};
  TJ_INTERNAL_CHECK(deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK)
      << "deflateInit2 failed for " << name;
  std::string out;
  char buffer[1 << 16];
  for (std::size_t i = 0; i <= pieces.size(); ++i) {
    const bool last = i == pieces.size();
    std::string_view piece = last ? std::string_view() : pieces[i];
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
    stream.avail_in = static_cast<uInt>(piece.size());  // pieces under 4 GiB: checked by the caller
    int result = Z_OK;
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof buffer;
      result = deflate(&stream, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(buffer, sizeof buffer - stream.avail_out);
    } while (stream.avail_out == 0 || (last && result != Z_STREAM_END));
  }
  deflateEnd(&stream);
  return out;
}

}  // namespace

void ZipWriter::add(const std::string& name, const std::vector<std::string_view>& pieces, bool deflate) {
  std::uint64_t size = 0;
  for (std::string_view piece : pieces) size += piece.size();
  const std::uint64_t offset = out_.position();
  TJ_CHECK(size < kLimit && offset < kLimit && entries_.size() < 0xffff)
      << "save_npz: '" << name << "' would make the archive 4 GiB or larger, or hold 65535 members, "
      << "which needs zip64; save the tensors in several .npz files";
  const std::string compressed = deflate ? deflate_pieces(pieces, name) : std::string();
  const std::uint64_t compressed_size = deflate ? compressed.size() : size;
  TJ_CHECK(compressed_size < kLimit) << "save_npz: '" << name << "' is 4 GiB or larger compressed";
  Entry entry{name, static_cast<std::uint16_t>(deflate ? 8 : 0), crc_of(pieces),
              static_cast<std::uint32_t>(compressed_size), static_cast<std::uint32_t>(size),
              static_cast<std::uint32_t>(offset)};
  // Pad a stored member so that its data, and so the .npy data 64 bytes into it, is aligned.
  const std::uint64_t unpadded = offset + 30 + name.size() + 4;
  const std::uint16_t padding = deflate ? 0 : static_cast<std::uint16_t>((64 - unpadded % 64) % 64);
  out_.write_u32(0x04034b50);
  out_.write_u16(kVersion);
  out_.write_u16(0);  // flags
  out_.write_u16(entry.method);
  out_.write_u16(0);  // time
  out_.write_u16(kDosDate);
  out_.write_u32(entry.crc32);
  out_.write_u32(entry.compressed_size);
  out_.write_u32(entry.size);
  out_.write_u16(static_cast<std::uint16_t>(name.size()));
  out_.write_u16(deflate ? 0 : static_cast<std::uint16_t>(4 + padding));
  out_.write(name);
  if (deflate) {
    out_.write(compressed);
  } else {
    out_.write_u16(kPaddingId);
    out_.write_u16(padding);
    out_.write(std::string(padding, '\0'));
    for (std::string_view piece : pieces) out_.write(piece);
  }
  entries_.push_back(std::move(entry));
}

void ZipWriter::finish() {
  const std::uint64_t directory_offset = out_.position();
  for (const Entry& entry : entries_) {
    out_.write_u32(0x02014b50);
    out_.write_u16(kVersion);  // made by
    out_.write_u16(kVersion);  // needed
    out_.write_u16(0);         // flags
    out_.write_u16(entry.method);
    out_.write_u16(0);
    out_.write_u16(kDosDate);
    out_.write_u32(entry.crc32);
    out_.write_u32(entry.compressed_size);
    out_.write_u32(entry.size);
    out_.write_u16(static_cast<std::uint16_t>(entry.name.size()));
    out_.write_u16(0);  // extra
    out_.write_u16(0);  // comment
    out_.write_u16(0);  // disk
    out_.write_u16(0);  // internal attributes
    out_.write_u32(0);  // external attributes
    out_.write_u32(entry.offset);
    out_.write(entry.name);
  }
  const std::uint64_t directory_size = out_.position() - directory_offset;
  TJ_CHECK(out_.position() < kLimit) << "save_npz: the archive would be 4 GiB or larger, which needs zip64; "
                                     << "save the tensors in several .npz files";
  out_.write_u32(0x06054b50);
  out_.write_u16(0);
  out_.write_u16(0);
  out_.write_u16(static_cast<std::uint16_t>(entries_.size()));
  out_.write_u16(static_cast<std::uint16_t>(entries_.size()));
  out_.write_u32(static_cast<std::uint32_t>(directory_size));
  out_.write_u32(static_cast<std::uint32_t>(directory_offset));
  out_.write_u16(0);  // comment
}

}  // namespace tensorjit::files
