#include "runtime/src/tensor_impl.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tensorjit/ir/check.hpp>

namespace tensorjit::detail {

void check_defined(const Tensor& tensor, std::string_view op) {
  TJ_CHECK(tensor.defined()) << op << ": the tensor is empty (default-constructed); assign a value first";
}

ir::NodePtr node_of(const Tensor& tensor, std::string_view op) {
  check_defined(tensor, op);
  return tensor.impl()->node();
}

Tensor wrap(ir::NodePtr node) { return Tensor(std::make_shared<TensorImpl>(std::move(node))); }

std::string describe(const Tensor& tensor) {
  if (!tensor.defined()) return "an empty tensor";
  return fmt::format("{}{}", dtype_name(tensor.dtype()), ir::shape_str(tensor.shape()));
}

void check_dtype(DType dtype, std::string_view op) {
  TJ_CHECK(static_cast<int>(dtype) < kDTypeCount)
      << op << ": DType(" << static_cast<int>(dtype) << ") is not a dtype; pass one of tensorjit::f32, f64, "
      << "i32, i64 or boolean";
}

int checked_axis(std::int64_t axis, int rank, std::string_view op, const Shape& shape) {
  auto normalized = ir::normalize_axis(axis, rank);
  TJ_CHECK(normalized) << op << ": axis " << axis << " is out of range for shape "
                       << ir::shape_str(shape) << " (rank " << rank << ")";
  return *normalized;
}

std::vector<int> checked_axes(const std::vector<std::int64_t>& axes, int rank, std::string_view op,
                              const Shape& shape) {
  std::vector<int> out;
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) out.push_back(d);
    return out;
  }
  for (auto axis : axes) out.push_back(checked_axis(axis, rank, op, shape));
  std::sort(out.begin(), out.end());
  TJ_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end())
      << op << ": axes [" << fmt::format("{}", fmt::join(axes, ", ")) << "] repeat an axis of shape "
      << ir::shape_str(shape);
  return out;
}

}  // namespace tensorjit::detail
