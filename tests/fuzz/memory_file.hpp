// Bytes as a file the loaders can open by path, without touching the disk: a memfd, named
// /proc/self/fd/<n>. The loaders map files; so does this.
#pragma once

#include <string>

#include "fuzz_target.hpp"

namespace tensorjit::fuzz {

class MemoryFile {
 public:
  explicit MemoryFile(Bytes bytes);
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace tensorjit::fuzz
