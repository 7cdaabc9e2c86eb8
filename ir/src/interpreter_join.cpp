// concat: each operand's elements copied, as bytes, into its place of a fresh contiguous result.
// Every dtype moves the same way (a copy changes no bit, NaN payloads included).
#include <array>
#include <cstring>

#include <tensorjit/ir/check.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {

Value evaluate_concat(const Node& node, std::span<const Value> inputs) {
  const int axis = node.attr<ConcatAttr>().axis;
  Value result = allocate_contiguous(node.dtype(), node.shape());
  const Strides result_strides = contiguous_strides(node.shape());
  const std::size_t size = itemsize(node.dtype());
  auto* out = static_cast<unsigned char*>(result.buffer->data());
  std::int64_t start = 0;  // the operand's first index along the axis in the result
  for (const Value& part : inputs) {
    TJ_INTERNAL_CHECK(part.dtype == node.dtype() && part.layout.shape.size() == node.shape().size())
        << "interpreter: concat of " << dtype_name(node.dtype()) << shape_str(node.shape()) << " got an operand "
        << dtype_name(part.dtype) << shape_str(part.layout.shape);
    const auto* in = static_cast<const unsigned char*>(part.buffer->data());
    const std::array<StridedOperand, 2> operands{
        StridedOperand{result_strides, start * result_strides[static_cast<std::size_t>(axis)]},
        StridedOperand{part.layout.strides, part.layout.offset}};
    walk_strided(part.layout.shape, operands, [&](const auto& offsets) {
      std::memcpy(out + offsets[0] * static_cast<std::int64_t>(size), in + offsets[1] * static_cast<std::int64_t>(size),
                  size);
    });
    start += part.layout.shape[static_cast<std::size_t>(axis)];
  }
  return result;
}

}  // namespace tensorjit::ir
