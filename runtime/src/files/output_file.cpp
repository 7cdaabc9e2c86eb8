#include "runtime/src/files/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::files {

OutputFile::OutputFile(std::string path)
    : path_(std::move(path)), temporary_(path_ + ".tmp"), file_(std::fopen(temporary_.c_str(), "wb")) {
  TJ_CHECK(file_ != nullptr) << "cannot create '" << temporary_ << "' to write '" << path_
                             << "': " << std::strerror(errno) << "; check that the folder exists and is writable";
}

OutputFile::~OutputFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  std::remove(temporary_.c_str());
}

void OutputFile::write(const void* data, std::size_t size) {
  if (size == 0) return;
  TJ_CHECK(std::fwrite(data, 1, size, file_) == size)
      << "cannot write '" << path_ << "': " << std::strerror(errno);
  position_ += size;
}

void OutputFile::write_u16(std::uint16_t value) {
  const unsigned char bytes[2] = {static_cast<unsigned char>(value), static_cast<unsigned char>(value >> 8)};
  write(bytes, 2);
}

void OutputFile::write_u32(std::uint32_t value) {
  write_u16(static_cast<std::uint16_t>(value));
  write_u16(static_cast<std::uint16_t>(value >> 16));
}

void OutputFile::write_u64(std::uint64_t value) {
  write_u32(static_cast<std::uint32_t>(value));
  write_u32(static_cast<std::uint32_t>(value >> 32));
}

void OutputFile::commit() {
  const int closed = std::fclose(file_);
  const int close_errno = errno;
  file_ = nullptr;
  if (closed != 0) std::remove(temporary_.c_str());
  TJ_CHECK(closed == 0) << "cannot write '" << path_ << "': " << std::strerror(close_errno);
  // A file mapped by tensors loaded from `path` keeps its old contents: rename replaces the name,
  // not the file they map.
  const int renamed = std::rename(temporary_.c_str(), path_.c_str());
  const int rename_errno = errno;
  if (renamed != 0) std::remove(temporary_.c_str());
  TJ_CHECK(renamed == 0) << "cannot rename '" << temporary_ << "' to '" << path_
                         << "': " << std::strerror(rename_errno);
}

}  // namespace tensorjit::files
