#include "runtime/src/files/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::files {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  TJ_CHECK(fd >= 0) << "cannot open '" << path << "': " << std::strerror(errno);
  struct stat info {};
  const int stat_result = ::fstat(fd, &info);
  const int stat_errno = errno;
  if (stat_result != 0 || !S_ISREG(info.st_mode)) ::close(fd);
  TJ_CHECK(stat_result == 0) << "cannot read '" << path << "': " << std::strerror(stat_errno);
  TJ_CHECK(S_ISREG(info.st_mode)) << "'" << path << "' is not a regular file";
  const auto size = static_cast<std::size_t>(info.st_size);
  // mmap refuses a length of 0; an empty file is still a file, whose loader says what is missing.
  void* data = size == 0 ? nullptr : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);  // the mapping keeps its own reference to the file
  TJ_CHECK(data != MAP_FAILED) << "cannot map '" << path << "': " << std::strerror(map_errno);
  return std::shared_ptr<const MappedFile>(
      new MappedFile(path, static_cast<const std::byte*>(data), size));
}

MappedFile::~MappedFile() {
  if (size_ != 0) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace tensorjit::files
