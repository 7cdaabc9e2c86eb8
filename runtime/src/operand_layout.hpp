// What every kernel launch does with its operands' layouts before it picks a kernel: merge the
// axes they all walk as one, and classify how each is read along the innermost axis.
#pragma once

#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/shape.hpp>

namespace tensorjit::detail {

// `shape` with size-1 axes dropped and neighbouring axes merged wherever every operand walks them
// as one (stride[d] == stride[d + 1] * extent[d + 1]): fewer axes, longer inner rows, the same
// row-major order of the elements. A shape with no axis left becomes [1] with stride 0.
struct MergedAxes {
  ir::Shape shape;
  std::vector<ir::Strides> strides;  // one per operand
};
MergedAxes merge_axes(const ir::Shape& shape, const std::vector<ir::Strides>& operand_strides);

// The kernel-key class of an operand's innermost stride.
codegen::InnerAccess classify_inner_stride(std::int64_t inner_stride);

}  // namespace tensorjit::detail
