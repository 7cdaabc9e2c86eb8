#include "runtime/src/files/stored_tensor.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <tensorjit/functions.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::files {
namespace {

// The formats store little-endian data, and a view hands the file's bytes to the kernels as they
// are.
static_assert(std::endian::native == std::endian::little, "the file loaders assume a little-endian host");

std::int64_t element_count(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;  // checked by checked_byte_size first
  return count;
}

bool is_plain_bool(const std::byte* bytes, std::int64_t count) {
  return std::all_of(bytes, bytes + count, [](std::byte b) { return std::to_integer<unsigned>(b) <= 1; });
}

// Writes the tensor's elements, converted, into `out` (count elements of the dtype).
void convert(const StoredTensor& stored, std::int64_t count, std::byte* out) {
  const std::byte* in = stored.bytes;
  const std::size_t size = itemsize(stored.dtype);
  switch (stored.conversion) {
    case Conversion::none:
      if (stored.dtype == DType::boolean) {
        for (std::int64_t i = 0; i < count; ++i) out[i] = std::byte{in[i] != std::byte{0}};
      } else {
        std::memcpy(out, in, static_cast<std::size_t>(count) * size);
      }
      return;
    case Conversion::swap_bytes:
      for (std::int64_t i = 0; i < count; ++i)
        std::reverse_copy(in + i * size, in + (i + 1) * size, out + i * size);
      return;
    case Conversion::from_u8:
    case Conversion::from_i8:
      for (std::int64_t i = 0; i < count; ++i) {
        const auto byte = std::to_integer<std::uint8_t>(in[i]);
        const std::int32_t value = stored.conversion == Conversion::from_u8
                                       ? static_cast<std::int32_t>(byte)
                                       : static_cast<std::int32_t>(static_cast<std::int8_t>(byte));
        std::memcpy(out + i * 4, &value, 4);
      }
      return;
  }
}

}  // namespace

std::size_t stored_itemsize(const StoredTensor& stored) {
  const bool one_byte = stored.conversion == Conversion::from_u8 || stored.conversion == Conversion::from_i8;
  return one_byte ? 1 : itemsize(stored.dtype);
}

std::int64_t checked_byte_size(const Shape& shape, std::size_t itemsize, const std::string& where) {
  TJ_CHECK(shape.size() <= static_cast<std::size_t>(ir::kMaxRank))
      << where << ": rank " << shape.size() << " is more than tensorjit's " << ir::kMaxRank
      << "; reshape the array to at most " << ir::kMaxRank << " axes before saving it";
  std::int64_t bytes = static_cast<std::int64_t>(itemsize);
  for (std::int64_t extent : shape) {
    TJ_CHECK(extent >= 0) << where << ": negative extent in shape " << ir::shape_str(shape)
                          << "; the file is corrupt";
    TJ_CHECK(!__builtin_mul_overflow(bytes, extent, &bytes))
        << where << ": shape " << ir::shape_str(shape) << " of " << itemsize
        << "-byte elements overflows int64; the file is corrupt";
  }
  return bytes;
}

Tensor make_tensor(const StoredTensor& stored, std::shared_ptr<const void> owner) {
  const std::int64_t count = element_count(stored.shape);
  const bool aligned = reinterpret_cast<std::uintptr_t>(stored.bytes) % itemsize(stored.dtype) == 0;
  const bool plain = stored.dtype != DType::boolean || is_plain_bool(stored.bytes, count);
  if (stored.conversion == Conversion::none && aligned && plain) {
    // from_blob never writes through the pointer: tensors are values, every result a new buffer.
    // The owner callback has nothing to do: its capture keeps the mapping alive while it exists.
    void* data = const_cast<std::byte*>(stored.bytes);
    // Constant: the mapping is read-only, so the GEMM may keep its packed panels of a weight.
    return tensorjit::detail::tensor_over(data, stored.shape, stored.strides, stored.dtype,
                                          [owner = std::move(owner)] {}, true);
  }
  // operator new[] aligns for every dtype (16 bytes); the copy is dense in the stored order, so the
  // same strides describe it.
  auto copy = std::shared_ptr<std::byte[]>(new std::byte[static_cast<std::size_t>(count) * itemsize(stored.dtype)]);
  convert(stored, count, copy.get());
  return tensorjit::detail::tensor_over(copy.get(), stored.shape, stored.strides, stored.dtype, [copy] {}, true);
}

}  // namespace tensorjit::files
