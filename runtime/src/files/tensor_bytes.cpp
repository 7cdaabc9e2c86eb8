#include "runtime/src/files/tensor_bytes.hpp"

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

namespace tensorjit::files {

TensorBytes tensor_bytes(const Tensor& tensor) {
  TensorBytes bytes;
  bytes.values = tensor.contiguous();
  bytes.values.eval();
  bytes.size = static_cast<std::size_t>(bytes.values.size()) * itemsize(bytes.values.dtype());
  if (bytes.size == 0) return bytes;
  TJ_INTERNAL_CHECK((ir::Layout{bytes.values.shape(), bytes.values.strides(), 0}.is_contiguous()))
      << "contiguous() left strides " << ir::shape_str(bytes.values.strides()) << " for shape "
      << ir::shape_str(bytes.values.shape());
  bytes.data = static_cast<const std::byte*>(bytes.values.data());
  return bytes;
}

}  // namespace tensorjit::files
