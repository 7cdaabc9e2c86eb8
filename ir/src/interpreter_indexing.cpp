// gather and scatter_add (ops.def, docs/indexing.md), the reference the kernels are held to bit for
// bit. Indices are visited in row-major order, so the first index out of range in that order is
// the one reported; scatter_add adds each destination's values in increasing position, the one
// fixed order the scatter step keeps at every width and thread count.
#include <array>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/indexing.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

std::int64_t read_index(const Value& indices, std::int64_t offset) {
  return indices.dtype == DType::i32 ? indices.data<std::int32_t>()[offset] : indices.data<std::int64_t>()[offset];
}

// The strides of `value` with its `axis` stride zeroed: a walk over the indices' shape then gives
// each index's element at position 0 along the axis, the element read being that plus the index
// times the axis stride.
std::vector<std::int64_t> without_axis(const Value& value, int axis) {
  std::vector<std::int64_t> strides(value.layout.strides.begin(), value.layout.strides.end());
  strides[static_cast<std::size_t>(axis)] = 0;
  return strides;
}

// Calls visit(x offset, index offset, ...) for every position of the indices in row-major order,
// with the element of `x` it names; throws for an index out of range before touching anything.
template <typename Visit>
void walk_indices(const Node& node, const Value& x, const Value& indices, std::span<const StridedOperand> extra,
                  Visit&& visit) {
  const int axis = node.attr<IndexAttr>().axis;
  const std::int64_t extent = x.layout.shape[static_cast<std::size_t>(axis)];
  const std::int64_t axis_stride = x.layout.strides[static_cast<std::size_t>(axis)];
  const auto x_strides = without_axis(x, axis);
  std::array<StridedOperand, 3> operands{StridedOperand{x_strides, 0}, StridedOperand{indices.layout.strides, 0},
                                         extra.empty() ? StridedOperand{indices.layout.strides, 0} : extra[0]};
  std::int64_t position = 0;
  walk_strided(indices.layout.shape, operands, [&](const auto& offsets) {
    const std::int64_t index = read_index(indices, offsets[1]);
    const std::int64_t element = resolve_index(index, extent);
    if (element < 0) throw_index_out_of_range(node, index, position);
    visit(offsets[0] + element * axis_stride, offsets[2]);
    ++position;
  });
}

}  // namespace

Value evaluate_indexing(const Node& node, std::span<const Value> inputs) {
  const Value& x = inputs[0];
  const Value& indices = inputs[1];
  if (node.op() == Op::gather) {
    Value result = allocate_contiguous(node.dtype(), node.shape());
    visit_dtype(node.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = result.data<T>();
      const T* from = x.data<T>();
      const StridedOperand written{result.layout.strides, 0};
      walk_indices(node, x, indices, std::span(&written, 1),
                   [&](std::int64_t read, std::int64_t write) { out[write] = from[read]; });
    });
    return result;
  }
  TJ_INTERNAL_CHECK(node.op() == Op::scatter_add) << "interpreter: " << op_name(node.op()) << " is not indexing";
  // Every index is checked before the first add: an error leaves no partial sum behind (the result
  // is a fresh value either way, but the kernel's order is the same).
  walk_indices(node, x, indices, {}, [](std::int64_t, std::int64_t) {});
  Value result = copy_to_contiguous(x);
  const Value& values = inputs[2];
  visit_dtype(node.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool> && !is_storage_float_v<T>) {  // f16/bf16: their f32 form (interpreter.cpp)
      T* out = result.data<T>();
      const T* from = values.data<T>();
      const StridedOperand read{values.layout.strides, 0};
      walk_indices(node, result, indices, std::span(&read, 1), [&](std::int64_t write, std::int64_t value) {
        out[write] = ScalarOp<Op::add>::apply(out[write], from[value]);
      });
    }
  });
  return result;
}

}  // namespace tensorjit::ir
