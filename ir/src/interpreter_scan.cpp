// cumsum along one axis, in the strict order of a sequential loop (ops.def): for each line along
// the axis (the other axes' indices in row-major order), result[0] = x[0] and, for i = 1, 2, ...,
// result[i] = result[i - 1] + x[i] (numpy's: the first output is the element itself, so a -0.0
// there stays -0.0). bool and integers accumulate in i64 (wrapping, as add does), floats in their
// own dtype. The JIT's scan kernel gives these bits at every width.
#include <array>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

template <typename T, typename Acc>
void scan_lines(const Value& input, int axis, const Value& result) {
  const T* x = input.data<T>();
  Acc* y = result.data<Acc>();
  const Shape& shape = input.layout.shape;
  const std::int64_t extent = shape[static_cast<std::size_t>(axis)];
  const std::int64_t input_step = input.layout.strides[static_cast<std::size_t>(axis)];
  const std::int64_t result_step = result.layout.strides[static_cast<std::size_t>(axis)];
  Shape lines = shape;
  lines[static_cast<std::size_t>(axis)] = 1;
  const std::array operands{StridedOperand{input.layout.strides, 0}, StridedOperand{result.layout.strides, 0}};
  walk_strided(lines, operands, [&](const auto& offsets) {
    Acc total = Acc{0};
    for (std::int64_t i = 0; i < extent; ++i) {
      const auto element = static_cast<Acc>(x[offsets[0] + i * input_step]);
      total = i == 0 ? element : ScalarOp<Op::add>::apply(total, element);
      y[offsets[1] + i * result_step] = total;
    }
  });
}

}  // namespace

Value evaluate_scan(const Node& node, const Value& input) {
  TJ_INTERNAL_CHECK(node.op() == Op::cumsum) << "interpreter: " << op_name(node.op()) << " is not a scan";
  const int axis = node.attr<ScanAttr>().axis;
  Value result = allocate_contiguous(node.dtype(), node.shape());
  visit_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    visit_dtype(node.dtype(), [&](auto result_tag) {
      using Acc = typename decltype(result_tag)::type;
      // f16 and bf16 scans run as their f32 form (f32_form.hpp, the driver).
      constexpr bool accumulates = is_storage_float_v<T> ? false
                                 : std::is_floating_point_v<Acc> ? std::is_same_v<Acc, T>
                                                                 : std::is_same_v<Acc, std::int64_t>;
      if constexpr (accumulates) {
        scan_lines<T, Acc>(input, axis, result);
      } else {
        TJ_INTERNAL_CHECK(false) << "interpreter: cumsum of " << dtype_name(input.dtype) << " gives "
                                 << dtype_name(node.dtype());
      }
    });
  });
  return result;
}

}  // namespace tensorjit::ir
