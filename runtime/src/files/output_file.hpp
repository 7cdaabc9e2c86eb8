// A file the savers write, with errors that name it. The file is written under a temporary name
// and renamed over `path` by commit(), so a failed save never leaves a truncated file behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tensorjit::files {

class OutputFile {
 public:
  // Throws Error naming `path` when it cannot be created.
  explicit OutputFile(std::string path);
  ~OutputFile();  // removes the temporary file unless commit() ran
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  // Little-endian integers, as every format here stores them.
  void write_u16(std::uint16_t value);
  void write_u32(std::uint32_t value);
  void write_u64(std::uint64_t value);
  std::uint64_t position() const { return position_; }
  // Flushes, closes and renames the file to `path`.
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  std::FILE* file_;
  std::uint64_t position_ = 0;
};

}  // namespace tensorjit::files
