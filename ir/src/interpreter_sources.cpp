// Source nodes: bound inputs, constants and iota.
#include <array>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

// The input's own buffer and layout, shared, never copied. The layout must lie inside the buffer:
// a caller's wrapped memory is not trusted to be large enough (docs/contracts.md, contract 5).
Value evaluate_input(const Node& node) {
  const auto& input = node.attr<InputAttr>();
  TJ_CHECK(input.buffer != nullptr)
      << "interpret: input %" << input.id << " (" << dtype_name(input.dtype)
      << shape_str(input.layout.shape) << ") is not bound to a buffer; bind every input first";
  TJ_INTERNAL_CHECK(input.dtype == node.dtype() && input.layout.shape == node.shape())
      << "interpret: input %" << input.id << " is " << dtype_name(input.dtype)
      << shape_str(input.layout.shape) << " but its node is " << dtype_name(node.dtype())
      << shape_str(node.shape());
  if (node.numel() > 0) {
    const auto [lowest, end] = input.layout.extent();
    const auto size = static_cast<std::int64_t>(itemsize(input.dtype));
    const auto capacity = static_cast<std::int64_t>(input.buffer->bytes()) / size;
    TJ_CHECK(lowest >= 0 && end <= capacity)
        << "interpret: input %" << input.id << " (" << dtype_name(input.dtype)
        << shape_str(input.layout.shape) << ") reads elements [" << lowest << ", " << end
        << ") of a buffer of " << capacity << " elements";
  }
  return Value{input.buffer, input.dtype, input.layout};
}

// One element, seen through zero strides: every index of the shape reads it.
Value evaluate_constant(const Node& node) {
  const auto& constant = node.attr<ConstantAttr>();
  Value value = allocate_contiguous(constant.dtype, Shape{1});
  visit_dtype(constant.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *static_cast<T*>(value.buffer->data()) = scalar_value<T>(constant.value);
  });
  value.layout = Layout{node.shape(), Strides(node.shape().size(), 0), 0};
  return value;
}

// start + step * offset at each index, offset the layout's element offset there, computed in
// double (a multiply and an add, two roundings), then converted to the dtype as cast converts
// (IotaAttr), written contiguously in row-major order.
Value evaluate_iota(const Node& node) {
  const auto& iota = node.attr<IotaAttr>();
  Value value = allocate_contiguous(iota.dtype, iota.layout.shape);
  visit_dtype(iota.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = static_cast<T*>(value.buffer->data());
    std::array<StridedOperand, 2> operands{StridedOperand{value.layout.strides, 0},
                                           StridedOperand{iota.layout.strides, iota.layout.offset}};
    walk_strided(iota.layout.shape, operands, [&](const auto& offsets) {
      const double element = iota.start + static_cast<double>(offsets[1]) * iota.step;
      data[offsets[0]] = ScalarOp<Op::cast>::apply<T>(element);
    });
  });
  return value;
}

}  // namespace

Value evaluate_source(const Node& node) {
  switch (node.op()) {
    case Op::input: return evaluate_input(node);
    case Op::constant: return evaluate_constant(node);
    case Op::iota: return evaluate_iota(node);
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "interpreter: " << op_name(node.op()) << " is not a source op";
}

}  // namespace tensorjit::ir
