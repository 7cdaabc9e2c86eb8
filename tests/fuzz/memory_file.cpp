#include "memory_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace tensorjit::fuzz {

MemoryFile::MemoryFile(Bytes bytes) : fd_(::memfd_create("tensorjit-fuzz", MFD_CLOEXEC)) {
  TJ_FUZZ_REQUIRE(fd_ >= 0);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
    TJ_FUZZ_REQUIRE(wrote > 0);
    done += static_cast<std::size_t>(wrote);
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemoryFile::~MemoryFile() { ::close(fd_); }

}  // namespace tensorjit::fuzz
