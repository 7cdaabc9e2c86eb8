#include "runtime/src/files/npy_array.hpp"

#include <cstring>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

#include "runtime/src/files/npy_header.hpp"

namespace tensorjit::files {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

std::uint32_t little_endian(const std::byte* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = count; i-- > 0;) value = value << 8 | std::to_integer<std::uint32_t>(bytes[i]);
  return value;
}

// The dtype and conversion of a descr such as '<f4' or '>i8'.
void set_dtype(StoredTensor& stored, const std::string& descr, const std::string& where) {
  const std::string_view type = descr.size() == 3 ? std::string_view(descr).substr(1) : "";
  const char order = descr.empty() ? '?' : descr[0];
  const bool little = order == '<' || order == '=' || order == '|';
  const bool big = order == '>';
  struct Known { std::string_view type; DType dtype; Conversion one_byte; };
  constexpr Known kKnown[] = {{"f4", DType::f32, Conversion::none}, {"f8", DType::f64, Conversion::none},
                              {"i4", DType::i32, Conversion::none}, {"i8", DType::i64, Conversion::none},
                              {"b1", DType::boolean, Conversion::none}, {"u1", DType::i32, Conversion::from_u8},
                              {"i1", DType::i32, Conversion::from_i8}, {"f2", DType::f16, Conversion::none}};
  for (const Known& known : kKnown) {
    if (type != known.type || !(little || big)) continue;
    stored.dtype = known.dtype;
    const bool one_byte = type[1] == '1';
    stored.conversion = one_byte ? known.one_byte : big ? Conversion::swap_bytes : Conversion::none;
    return;
  }
  TJ_FAIL() << where << ": dtype '" << descr << "' is not supported; tensorjit loads <f4 <f8 <f2 <i4 <i8 |b1 "
            << "(and their big-endian forms), and |u1 |i1 as i32; convert the array first, e.g. "
            << "a.astype('float32') in numpy";
}

std::vector<std::int64_t> column_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    strides[i] = stride;
    stride *= shape[i];  // bounded: the byte size was checked first
  }
  return strides;
}

}  // namespace

StoredTensor read_npy(const std::byte* data, std::size_t size, const std::string& where) {
  TJ_CHECK(size != 0) << where << ": the file is empty, not a .npy file";
  TJ_CHECK(size >= 10 && std::memcmp(data, kMagic.data(), kMagic.size()) == 0)
      << where << ": not a .npy file (it does not start with numpy's magic \"\\x93NUMPY\")";
  const int major = std::to_integer<int>(data[6]), minor = std::to_integer<int>(data[7]);
  TJ_CHECK(major >= 1 && major <= 3) << where << ": .npy version " << major << "." << minor
                                     << " is not supported (versions 1.0, 2.0 and 3.0 are)";
  const std::size_t prefix = major == 1 ? 10 : 12;
  TJ_CHECK(size >= prefix) << where << ": truncated: the file ends inside the .npy preamble";
  const std::uint32_t header_length = little_endian(data + 8, major == 1 ? 2 : 4);
  TJ_CHECK(header_length <= size - prefix)
      << where << ": truncated: the header is " << header_length << " bytes long but the file has only "
      << size - prefix << " bytes after the preamble";
  const std::string_view text(reinterpret_cast<const char*>(data + prefix), header_length);
  const NpyHeader header = parse_npy_header(text, where);

  StoredTensor stored;
  set_dtype(stored, header.descr, where);
  stored.shape = header.shape;
  const std::size_t offset = prefix + header_length;
  const std::int64_t data_bytes = checked_byte_size(header.shape, stored_itemsize(stored), where);
  TJ_CHECK(static_cast<std::uint64_t>(data_bytes) <= size - offset)
      << where << ": truncated: shape " << ir::shape_str(header.shape) << " of '" << header.descr
      << "' needs " << data_bytes << " bytes of data but the file has " << size - offset;
  // Fortran order stores the first axis fastest: the same bytes seen through reversed strides.
  if (header.fortran_order) stored.strides = column_major_strides(header.shape);
  stored.bytes = data + offset;
  return stored;
}

std::string_view npy_descr(DType dtype, const std::string& where) {
  switch (dtype) {
    case DType::f16: return "<f2";
    case DType::bf16:
      TJ_FAIL() << where << ": numpy has no bf16 dtype; save the tensor as f32 (t.astype(tj::f32), "
                << "exact) or in a safetensors file, which has BF16";
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::boolean: return "|b1";
  }
  return "?";
}

}  // namespace tensorjit::files
