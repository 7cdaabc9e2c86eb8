#include "runtime/src/operand_layout.hpp"

namespace tensorjit::detail {

MergedAxes merge_axes(const ir::Shape& shape, const std::vector<ir::Strides>& operand_strides) {
  MergedAxes out;
  out.strides.resize(operand_strides.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !out.shape.empty();
    for (std::size_t k = 0; merge && k < operand_strides.size(); ++k)
      merge = out.strides[k].back() == operand_strides[k][d] * shape[d];
    if (merge) {
      out.shape.back() *= shape[d];
      for (std::size_t k = 0; k < operand_strides.size(); ++k) out.strides[k].back() = operand_strides[k][d];
    } else {
      out.shape.push_back(shape[d]);
      for (std::size_t k = 0; k < operand_strides.size(); ++k) out.strides[k].push_back(operand_strides[k][d]);
    }
  }
  if (out.shape.empty()) {
    out.shape.push_back(1);
    for (auto& s : out.strides) s.push_back(0);
  }
  return out;
}

codegen::InnerAccess classify_inner_stride(std::int64_t inner_stride) {
  if (inner_stride == 1) return codegen::InnerAccess::contiguous;
  if (inner_stride == 0) return codegen::InnerAccess::broadcast;
  return codegen::InnerAccess::strided;
}

}  // namespace tensorjit::detail
