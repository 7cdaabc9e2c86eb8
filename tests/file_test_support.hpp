// What the file tests share: a temporary folder, raw file bytes, and whether a pointer lies in a
// mapping of a given file (the zero-copy check).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace file_test {

class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tensorjit-files-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + pattern);
    path_ = pattern;
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string read_bytes(const std::string& path) {
  std::ostringstream out;
  out << std::ifstream(path, std::ios::binary).rdbuf();
  return out.str();
}

// Whether `pointer` lies in a mapping of the file at `path` (/proc/self/maps): a loaded tensor that
// does is a view on the file, not a copy.
inline bool mapped_from(const std::string& path, const void* pointer) {
  const std::string canonical = std::filesystem::canonical(path).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  while (std::getline(maps, line)) {
    if (line.size() < canonical.size() || line.compare(line.size() - canonical.size(), canonical.size(), canonical) != 0)
      continue;
    std::uintptr_t low = 0, high = 0;
    char dash = 0;
    std::istringstream(line) >> std::hex >> low >> dash >> high;
    if (address >= low && address < high) return true;
  }
  return false;
}

// Little-endian bytes of an integer, for files built by hand.
template <typename T> std::string le(T value) {
  std::string out;
  for (std::size_t i = 0; i < sizeof(T); ++i) out += static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
  return out;
}

// A .npy v1.0 file built by hand: `dict` padded with spaces to `header_length` bytes (newline
// included) so that tests can place the data anywhere, then `data`.
inline std::string npy_file(const std::string& dict, std::size_t header_length, const std::string& data) {
  std::string header = dict;
  header.resize(header_length - 1, ' ');
  return std::string("\x93NUMPY\x01\x00", 8) + le<std::uint16_t>(static_cast<std::uint16_t>(header_length)) +
         header + "\n" + data;
}

// Whether python3 can import `module`; the interop tests skip (and say so) when it cannot.
inline bool python_has(const std::string& module) {
  return std::system(("python3 -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace file_test
