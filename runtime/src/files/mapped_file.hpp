// A file mapped read-only (MAP_PRIVATE), shared by the tensors that view it: the loaders hand each
// tensor a shared_ptr to the mapping, so it is unmapped when the last tensor or graph lets go.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace tensorjit::files {

class MappedFile {
 public:
  // Throws Error naming `path` when it cannot be opened or mapped. An empty file maps to no bytes.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, const std::byte* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  const std::byte* data_;
  std::size_t size_;
};

}  // namespace tensorjit::files
