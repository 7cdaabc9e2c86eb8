// load_safetensors and save_safetensors (docs/files.md): an 8-byte little-endian header length N,
// N bytes of JSON describing each tensor, then the data.
#include <algorithm>
#include <tuple>
#include <nlohmann/json.hpp>
#include <vector>

#include <tensorjit/files.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

#include "runtime/src/files/mapped_file.hpp"
#include "runtime/src/files/output_file.hpp"
#include "runtime/src/files/stored_tensor.hpp"
#include "runtime/src/files/tensor_bytes.hpp"

namespace tensorjit {
namespace {

constexpr std::string_view kMetadata = "__metadata__";
constexpr std::size_t kAlignment = 8;  // the format asks for data aligned to 8 bytes

struct Entry {
  std::string name;
  files::StoredTensor stored;
  std::uint64_t begin = 0, end = 0;  // data_offsets, relative to the data section
};

void set_dtype(files::StoredTensor& stored, const std::string& dtype, const std::string& where) {
  struct Known { std::string_view name; DType dtype; files::Conversion conversion; };
  constexpr Known kKnown[] = {{"F32", DType::f32, files::Conversion::none}, {"F64", DType::f64, files::Conversion::none},
                              {"I32", DType::i32, files::Conversion::none}, {"I64", DType::i64, files::Conversion::none},
                              {"BOOL", DType::boolean, files::Conversion::none},
                              {"F16", DType::f16, files::Conversion::none}, {"BF16", DType::bf16, files::Conversion::none},
                              {"U8", DType::i32, files::Conversion::from_u8}, {"I8", DType::i32, files::Conversion::from_i8}};
  for (const Known& known : kKnown) {
    if (dtype != known.name) continue;
    stored.dtype = known.dtype;
    stored.conversion = known.conversion;
    return;
  }
  TJ_FAIL() << where << ": dtype " << dtype << " is not supported; tensorjit loads F32 F64 F16 BF16 I32 I64 BOOL, "
            << "and I8 U8 as i32; convert the tensor before saving it (e.g. t.float() in PyTorch)";
}

// One tensor's JSON entry, checked: its dtype, a shape of non-negative integers and two offsets
// whose span equals the shape's byte size.
Entry read_entry(const std::string& name, const nlohmann::json& value, const std::string& file_where) {
  const std::string where = file_where + ": tensor '" + name + "'";
  TJ_CHECK(value.is_object() && value.contains("dtype") && value.contains("shape") && value.contains("data_offsets"))
      << where << ": its entry must be an object with \"dtype\", \"shape\" and \"data_offsets\"";
  const nlohmann::json &dtype = value["dtype"], &shape = value["shape"], &offsets = value["data_offsets"];
  TJ_CHECK(dtype.is_string()) << where << ": \"dtype\" is not a string";
  TJ_CHECK(shape.is_array()) << where << ": \"shape\" is not a list";
  TJ_CHECK(offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() && offsets[1].is_number_unsigned())
      << where << ": \"data_offsets\" is not a list of two non-negative integers";
  Entry entry;
  entry.name = name;
  set_dtype(entry.stored, dtype.get<std::string>(), where);
  for (const nlohmann::json& extent : shape) {
    TJ_CHECK(extent.is_number_unsigned() && extent.get<std::uint64_t>() <= std::uint64_t(INT64_MAX))
        << where << ": shape " << shape.dump() << " holds something other than a non-negative int64";
    entry.stored.shape.push_back(extent.get<std::int64_t>());
  }
  const std::int64_t bytes = files::checked_byte_size(entry.stored.shape, files::stored_itemsize(entry.stored), where);
  entry.begin = offsets[0].get<std::uint64_t>();
  entry.end = offsets[1].get<std::uint64_t>();
  TJ_CHECK(entry.begin <= entry.end && entry.end - entry.begin == static_cast<std::uint64_t>(bytes))
      << where << ": data_offsets [" << entry.begin << ", " << entry.end << "] do not span the " << bytes
      << " bytes of " << dtype.get<std::string>() << ir::shape_str(entry.stored.shape);
  return entry;
}

nlohmann::json parse_header(const files::MappedFile& file, const std::string& where, std::uint64_t& data_start) {
  const std::size_t size = file.size();
  TJ_CHECK(size != 0) << where << ": the file is empty, not a safetensors file";
  TJ_CHECK(size >= 8) << where << ": truncated: " << size << " bytes cannot hold the 8-byte header length";
  std::uint64_t length = 0;
  for (int i = 8; i-- > 0;) length = length << 8 | std::to_integer<std::uint64_t>(file.data()[i]);
  TJ_CHECK(length <= size - 8) << where << ": the header length " << length << " is more than the "
                               << size - 8 << " bytes after it; the file is truncated or not a safetensors file";
  data_start = 8 + length;
  const auto* text = reinterpret_cast<const char*>(file.data() + 8);
  nlohmann::json header = nlohmann::json::parse(text, text + length, nullptr, /*allow_exceptions=*/false);
  TJ_CHECK(!header.is_discarded()) << where << ": the header is not valid JSON; the file is corrupt or not a safetensors file";
  TJ_CHECK(header.is_object()) << where << ": the header is JSON but not an object of tensors";
  return header;
}

}  // namespace

std::map<std::string, Tensor> load_safetensors(const std::string& path) {
  auto file = files::MappedFile::open(path);
  const std::string where = "load_safetensors: '" + path + "'";
  std::uint64_t data_start = 0;
  const nlohmann::json header = parse_header(*file, where, data_start);
  const std::uint64_t data_size = file->size() - data_start;

  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == kMetadata) continue;
    entries.push_back(read_entry(name, value, where));
  }
  // Sorted by where they start, each must end inside the data and before the next begins.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    TJ_CHECK(entry.end <= data_size) << where << ": tensor '" << entry.name << "': data_offsets [" << entry.begin
                                     << ", " << entry.end << "] point past the " << data_size
                                     << " bytes of data; the file is truncated";
    TJ_CHECK(i == 0 || entries[i - 1].end <= entry.begin)
        << where << ": tensors '" << entries[i - 1].name << "' and '" << entry.name << "' overlap (data_offsets ["
        << entries[i - 1].begin << ", " << entries[i - 1].end << "] and [" << entry.begin << ", " << entry.end << "])";
  }
  std::map<std::string, Tensor> tensors;
  for (Entry& entry : entries) {
    entry.stored.bytes = file->data() + data_start + entry.begin;
    tensors.emplace(entry.name, files::make_tensor(entry.stored, file));
  }
  return tensors;
}

void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  static constexpr std::string_view kNames[] = {"F32", "F64", "I32", "I64", "BOOL", "F16", "BF16"};
  static_assert(std::size(kNames) == kDTypeCount);
  nlohmann::json header = nlohmann::json::object();
  std::vector<files::TensorBytes> data;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {  // std::map: sorted name order
    TJ_CHECK(name != kMetadata) << "save_safetensors: '" << path << "': \"" << kMetadata
                                << "\" is reserved for the metadata; rename the tensor";
    data.push_back(files::tensor_bytes(tensor));
    header[name] = {{"dtype", kNames[static_cast<int>(tensor.dtype())]},
                    {"shape", tensor.shape()},
                    {"data_offsets", {offset, offset + data.back().size}}};
    offset += data.back().size;
  }
  if (!metadata.empty()) header[std::string(kMetadata)] = metadata;
  std::string text = header.dump();
  text.resize((8 + text.size() + kAlignment - 1) / kAlignment * kAlignment - 8, ' ');
  files::OutputFile out(path);
  out.write_u64(text.size());
  out.write(text);
  for (const files::TensorBytes& bytes : data) out.write(bytes.data, bytes.size);
  out.commit();
}

}  // namespace tensorjit
