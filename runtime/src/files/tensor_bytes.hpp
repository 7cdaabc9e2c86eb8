// The values of a tensor as the bytes the savers write: evaluated, row-major, little-endian.
#pragma once

#include <cstddef>

#include <tensorjit/tensor.hpp>

namespace tensorjit::files {

struct TensorBytes {
  Tensor values;  // contiguous and evaluated; keeps `data` alive
  const std::byte* data = nullptr;
  std::size_t size = 0;
};

// Evaluates `tensor` and makes it contiguous first (a view is written as its values).
TensorBytes tensor_bytes(const Tensor& tensor);

}  // namespace tensorjit::files
