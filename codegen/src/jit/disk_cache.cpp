#include "codegen/src/jit/disk_cache.hpp"

#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/xxhash.h>
#include <unistd.h>

#include "codegen_digest.hpp"
#include "codegen/src/jit/optimization_pipeline.hpp"

namespace tensorjit::codegen {
namespace {

constexpr char kMagic[8] = {'T', 'J', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8 + 8;
// A kernel's object is a few KiB; anything this large is not one of ours.
constexpr std::uint64_t kMaximumFileSize = 64ull << 20;

void put_integer(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_integer(const std::string& in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= std::uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

}  // namespace

std::uint64_t payload_checksum(std::string_view payload) {
  return llvm::xxh3_64bits(llvm::StringRef(payload.data(), payload.size()));
}

std::string cache_identity(const KernelKey& key, std::string_view symbol,
                           const TargetDescription& target, CodeTier tier) {
  return fmt::format(
      "tensorjit kernel cache\nkey={}\nsymbol={}\nllvm={}\ntensorjit={}\ncodegen_sources={}\n"
      "cpu={}\nfeatures={}\nvector_bits={}\npipeline={}\ncodegen={}\ncode_model=small\n"
      "relocation=pic\n",
      key.text, symbol, LLVM_VERSION_STRING, TENSORJIT_VERSION, TENSORJIT_CODEGEN_DIGEST,
      target.cpu, target.features,
      target.vector_bits, pipeline_name(kKernelPipeline), codegen_level_name(codegen_level(tier)));
}

std::filesystem::path cache_file_path(const std::filesystem::path& directory,
                                      const std::string& identity) {
  const auto digest = llvm::BLAKE3::hash<16>(
      llvm::ArrayRef(reinterpret_cast<const uint8_t*>(identity.data()), identity.size()));
  std::string name;
  for (uint8_t byte : digest) name += fmt::format("{:02x}", byte);
  return directory / (name + ".tjk");
}

CacheFileRead read_cache_file(const std::filesystem::path& path, const std::string& identity) {
  CacheFileRead result;
  std::error_code error;
  const auto file_size = std::filesystem::file_size(path, error);
  if (error) return result;  // absent (or unreadable: treated the same, it will be rewritten)
  if (file_size > kMaximumFileSize) {
    result.rejection = fmt::format("file of {} bytes is too large to be a kernel", file_size);
    return result;
  }
  std::string bytes(file_size, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!in || static_cast<std::uint64_t>(in.gcount()) != file_size) {
      result.rejection = "read failed";
      return result;
    }
  }
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    result.rejection = "not a tensorjit kernel cache file (bad magic)";
    return result;
  }
  const auto version = get_integer(bytes, 8, 4);
  if (version != kDiskCacheFormatVersion) {
    result.rejection =
        fmt::format("format version {}, expected {}", version, kDiskCacheFormatVersion);
    return result;
  }
  const auto identity_size = get_integer(bytes, 12, 4);
  const auto payload_size = get_integer(bytes, 16, 8);
  const auto stored_checksum = get_integer(bytes, 24, 8);
  if (identity_size + payload_size + kHeaderSize != bytes.size()) {
    result.rejection = "sizes in the header disagree with the file size (truncated?)";
    return result;
  }
  if (std::string_view(bytes).substr(kHeaderSize, identity_size) != identity) {
    result.rejection = "made for another kernel, CPU, width or version";
    return result;
  }
  const std::string_view payload = std::string_view(bytes).substr(kHeaderSize + identity_size);
  if (payload_checksum(payload) != stored_checksum) {
    result.rejection = "checksum mismatch (corrupt)";
    return result;
  }
  result.object = std::string(payload);
  return result;
}

std::string write_cache_file(const std::filesystem::path& path, const std::string& identity,
                             std::string_view object) {
  static std::atomic<std::uint64_t> temporary_counter{0};
  try {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) return "cannot create the directory: " + error.message();
    std::string file(kMagic, sizeof kMagic);
    put_integer(file, kDiskCacheFormatVersion, 4);
    put_integer(file, identity.size(), 4);
    put_integer(file, object.size(), 8);
    put_integer(file, payload_checksum(object), 8);
    file += identity;
    file += object;
    auto temporary = path;
    temporary += fmt::format(".tmp.{}.{}", static_cast<long>(::getpid()), ++temporary_counter);
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(file.data(), static_cast<std::streamsize>(file.size()));
      out.close();
      if (!out) {
        std::filesystem::remove(temporary, error);
        return "writing " + temporary.string() + " failed";
      }
    }
    std::filesystem::rename(temporary, path, error);
    if (error) {
      const std::string reason = "rename failed: " + error.message();
      std::filesystem::remove(temporary, error);
      return reason;
    }
    return {};
  } catch (const std::exception& exception) {
    return exception.what();
  }
}

}  // namespace tensorjit::codegen
