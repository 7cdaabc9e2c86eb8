// load_npz and save_npz (docs/files.md): a zip of <name>.npy members.
#include <zlib.h>

#include <tensorjit/files.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/files/mapped_file.hpp"
#include "runtime/src/files/npy_array.hpp"
#include "runtime/src/files/npy_header.hpp"
#include "runtime/src/files/output_file.hpp"
#include "runtime/src/files/tensor_bytes.hpp"
#include "runtime/src/files/zip_reader.hpp"
#include "runtime/src/files/zip_writer.hpp"

namespace tensorjit {
namespace {

constexpr std::string_view kSuffix = ".npy";
// Deflate compresses at most about 1032:1; a member claiming more is corrupt, and refusing it keeps
// a small file from asking for a huge buffer.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

// A deflated member inflated into a buffer of its own, its size and CRC-32 checked.
std::shared_ptr<std::byte[]> inflate_member(const std::byte* data, const files::ZipMember& member,
                                            const std::string& where) {
  TJ_CHECK(member.size <= member.compressed_size * kMaxDeflateRatio + 1024)
      << where << ": corrupt: " << member.compressed_size << " deflated bytes cannot hold " << member.size;
  auto buffer = std::shared_ptr<std::byte[]>(new std::byte[member.size]);
  z_stream stream{};
  TJ_INTERNAL_CHECK(inflateInit2(&stream, -15) == Z_OK) << "inflateInit2 failed for " << where;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data + member.offset));
  stream.avail_in = static_cast<uInt>(member.compressed_size);  // under 4 GiB: no zip64
  stream.next_out = reinterpret_cast<Bytef*>(buffer.get());
  stream.avail_out = static_cast<uInt>(member.size);
  const int result = inflate(&stream, Z_FINISH);
  const std::uint64_t produced = stream.total_out;
  const std::string message = stream.msg ? stream.msg : "it does not inflate to its stated size";
  inflateEnd(&stream);
  TJ_CHECK(result == Z_STREAM_END && produced == member.size)
      << where << ": corrupt deflated data (" << message << ")";
  const auto crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(buffer.get()), static_cast<uInt>(member.size));
  TJ_CHECK(crc == member.crc32) << where << ": corrupt: the CRC-32 of the inflated data does not match";
  return buffer;
}

}  // namespace

std::map<std::string, Tensor> load_npz(const std::string& path) {
  auto file = files::MappedFile::open(path);
  const std::string where = "load_npz: '" + path + "'";
  std::map<std::string, Tensor> tensors;
  for (const files::ZipMember& member : files::read_zip_members(file->data(), file->size(), where)) {
    const std::string member_where = where + ": member '" + member.name + "'";
    TJ_CHECK(member.name.size() > kSuffix.size() && member.name.ends_with(kSuffix))
        << member_where << " is not an .npy array; an .npz holds only <name>.npy members";
    const std::string key = member.name.substr(0, member.name.size() - kSuffix.size());
    TJ_CHECK(!tensors.contains(key)) << member_where << " appears twice";
    if (member.method == 0) {
      TJ_CHECK(member.size == member.compressed_size)
          << member_where << ": corrupt: a stored member of " << member.compressed_size << " bytes claims "
          << member.size << " uncompressed";
      // Stored: the .npy lies in the mapping as it is, so its tensor is a view on the file.
      const files::StoredTensor stored = files::read_npy(file->data() + member.offset, member.size, member_where);
      tensors.emplace(key, files::make_tensor(stored, file));
    } else {
      auto buffer = inflate_member(file->data(), member, member_where);
      const files::StoredTensor stored = files::read_npy(buffer.get(), member.size, member_where);
      tensors.emplace(key, files::make_tensor(stored, buffer));
    }
  }
  return tensors;
}

void save_npz(const std::string& path, const std::map<std::string, Tensor>& tensors, bool compressed) {
  files::OutputFile out(path);
  files::ZipWriter zip(out);
  for (const auto& [name, tensor] : tensors) {
    TJ_CHECK(!name.empty()) << "save_npz: '" << path << "': a tensor has an empty name; numpy needs a key";
    const std::string_view descr =
        files::npy_descr(tensor.dtype(), "save_npz: '" + path + "': tensor '" + name + "'");
    const files::TensorBytes bytes = files::tensor_bytes(tensor);
    const std::string preamble = files::npy_preamble(descr, tensor.shape());
    zip.add(name + std::string(kSuffix),
            {preamble, std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size)}, compressed);
  }
  zip.finish();
  out.commit();
}

}  // namespace tensorjit
