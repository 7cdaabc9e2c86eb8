// The on-disk kernel cache: one file per kernel, named by a hash of everything that changes the
// code. A file is only ever loaded after its header and checksum say it is whole and ours.
//
// File layout (integers little-endian):
//   8 bytes   magic "TJKCACHE"
//   u32       format version (kDiskCacheFormatVersion)
//   u32       identity size in bytes
//   u64       payload size in bytes
//   u64       payload checksum (xxh3-64)
//   identity  the full identity text (see cache_identity), compared byte for byte on load
//   payload   the relocatable object the JIT linked
// A file whose size, magic, version, identity or checksum disagree is rejected (then the kernel
// is compiled and the file rewritten). Files are written to a unique temporary name in the same
// directory and renamed into place, so a reader never sees a half-written file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <tensorjit/codegen/jit.hpp>

namespace tensorjit::codegen {

inline constexpr std::uint32_t kDiskCacheFormatVersion = 1;

// Everything that changes a kernel's code, as text: the caller's key, the symbol, LLVM and
// project versions, CPU name and features, vector width, pipeline, codegen level (each tier has
// its own file), code and relocation models.
std::string cache_identity(const KernelKey& key, std::string_view symbol,
                           const TargetDescription& target, CodeTier tier);

// <directory>/<32 hex digits of a hash of the identity>.tjk
std::filesystem::path cache_file_path(const std::filesystem::path& directory,
                                      const std::string& identity);

// The checksum a cache file stores of its payload (xxh3-64).
std::uint64_t payload_checksum(std::string_view payload);

struct CacheFileRead {
  std::optional<std::string> object;  // set when the file is present and valid
  std::string rejection;              // why a present file was not used; empty if absent or valid
};

// Never throws: an unreadable file is reported as a rejection.
CacheFileRead read_cache_file(const std::filesystem::path& path, const std::string& identity);

// Writes atomically (temporary name, then rename). Returns the reason on failure, empty on
// success. Never throws.
std::string write_cache_file(const std::filesystem::path& path, const std::string& identity,
                             std::string_view object);

}  // namespace tensorjit::codegen
