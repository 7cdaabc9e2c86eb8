// Writes a zip archive (what .npz files are): local headers, the central directory and the end
// record, members stored or deflated. No zip64: an archive of 4 GiB or more is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/src/files/output_file.hpp"

namespace tensorjit::files {

class ZipWriter {
 public:
  explicit ZipWriter(OutputFile& out) : out_(out) {}

  // One member made of `pieces` in order. A stored member's data starts at a multiple of 64 bytes
  // in the archive (padded by an extra field, as Android's zipalign does), so a reader can map it.
  void add(const std::string& name, const std::vector<std::string_view>& pieces, bool deflate);
  // The central directory and the end record.
  void finish();

 private:
  struct Entry {
    std::string name;
    std::uint16_t method;
    std::uint32_t crc32, compressed_size, size, offset;
  };
  OutputFile& out_;
  std::vector<Entry> entries_;
};

}  // namespace tensorjit::files
