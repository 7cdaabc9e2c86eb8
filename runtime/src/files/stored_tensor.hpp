// Turns the bytes a file stores for one tensor into a Tensor: a view on them when they can be read
// as they are (the zero-copy rule, docs/files.md), else a converted copy. Shared by the loaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit::files {

// How the stored elements become the tensor's dtype.
enum class Conversion : std::uint8_t {
  none,        // read as they are
  swap_bytes,  // big-endian: copied and swapped
  from_u8,     // one unsigned byte each, widened to i32
  from_i8,     // one signed byte each, widened to i32
};

struct StoredTensor {
  DType dtype;  // of the tensor made
  Conversion conversion = Conversion::none;
  Shape shape;
  std::vector<std::int64_t> strides;  // in elements; empty is row-major. Dense in either order.
  const std::byte* bytes = nullptr;   // the first stored element
};

// The bytes one stored element takes.
std::size_t stored_itemsize(const StoredTensor& stored);

// The bytes a dense tensor of `shape` takes, checked: rank at most 8, no negative extent, and no
// overflow of int64. Throws Error starting with `where` ("load_npy: 'a.npy': tensor 'x'").
std::int64_t checked_byte_size(const Shape& shape, std::size_t itemsize, const std::string& where);

// A view on `stored.bytes` that keeps `owner` (the mapping or buffer holding them) alive, or a copy
// when the bytes are misaligned for the dtype, need a conversion, or are bools other than 0 and 1
// (made 0 and 1, as numpy reads any nonzero byte as true). The caller has checked that the bytes
// lie inside `owner`.
Tensor make_tensor(const StoredTensor& stored, std::shared_ptr<const void> owner);

}  // namespace tensorjit::files
