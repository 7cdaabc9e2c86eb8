// Elementwise ops: ScalarOp<op> (scalar_ops.hpp) applied to each element, the inputs read in
// row-major order of the result, the result written contiguously. The dispatch table is generated
// from ops.def; the C++ types come from visit_dtype.
//
// An input that is not contiguous (a broadcast, a transpose, a slice with steps) is copied to a
// contiguous buffer first, by one strided copy per element size, so that each op x dtype
// instantiation is a flat loop. Walking every input through its strides inside that loop
// instead made the strided walk nine tenths of this file's compile time (about 100 s of the
// test command's three builds).
#include <array>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_eval.hpp"
#include "strided_walk.hpp"

namespace tensorjit::ir {
namespace {

// `value` itself when its elements lie in row-major order from its offset, else a contiguous copy.
Value contiguous(const Value& value) {
  if (value.layout.strides == contiguous_strides(value.layout.shape)) return value;
  return copy_to_contiguous(value);
}

template <typename Result, typename... Operands, std::size_t... Index, typename Function>
void map_elements(const Value& result, std::span<const Value> inputs,
                  std::index_sequence<Index...>, Function function) {
  const std::int64_t count = checked_numel(result.layout.shape, "interpreter");
  if (count == 0) return;
  const std::array<Value, sizeof...(Operands)> flat{contiguous(inputs[Index])...};
  Result* result_data = static_cast<Result*>(result.buffer->data()) + result.layout.offset;
  const std::tuple<const Operands*...> input_data{
      static_cast<const Operands*>(flat[Index].buffer->data()) + flat[Index].layout.offset...};
  for (std::int64_t i = 0; i < count; ++i)
    result_data[i] = function(std::get<Index>(input_data)[i]...);
}

// Copies `from`'s elements, as words of their size, into `to` (contiguous, of from's shape).
template <typename Word> void copy_strided(const Value& from, const Value& to) {
  const Strides to_strides = contiguous_strides(from.layout.shape);
  const std::array<StridedOperand, 2> operands{StridedOperand{to_strides, to.layout.offset},
                                               StridedOperand{from.layout.strides, from.layout.offset}};
  Word* to_data = static_cast<Word*>(to.buffer->data());
  const Word* from_data = static_cast<const Word*>(from.buffer->data());
  walk_strided(from.layout.shape, operands,
               [&](const auto& offsets) { to_data[offsets[0]] = from_data[offsets[1]]; });
}

// result[i] = function(inputs[0][i], inputs[1][i], ...) for every index i of the result's shape,
// inputs[n] holding C++ type Operands...[n]. Checks the dtypes and shapes it relies on, since a
// mismatch would read or write out of bounds.
template <typename Result, typename... Operands, typename Function>
void map_elements(Op op, const Value& result, std::span<const Value> inputs, Function function) {
  constexpr std::array<DType, sizeof...(Operands)> operand_dtypes{dtype_of<Operands>()...};
  TJ_INTERNAL_CHECK(result.dtype == dtype_of<Result>() && inputs.size() == sizeof...(Operands))
      << "interpreter: " << op_name(op) << " gives " << dtype_name(dtype_of<Result>())
      << " from " << inputs.size() << " inputs, but the node is " << dtype_name(result.dtype);
  for (std::size_t n = 0; n < inputs.size(); ++n) {
    TJ_INTERNAL_CHECK(inputs[n].dtype == operand_dtypes[n] &&
                      inputs[n].layout.shape == result.layout.shape)
        << "interpreter: " << op_name(op) << " input " << n << " is "
        << dtype_name(inputs[n].dtype) << shape_str(inputs[n].layout.shape) << ", expected "
        << dtype_name(operand_dtypes[n]) << shape_str(result.layout.shape);
  }
  map_elements<Result, Operands...>(result, inputs, std::index_sequence_for<Operands...>{},
                                    function);
}

template <Op op> Value evaluate_op(const Node& node, std::span<const Value> inputs) {
  Value result = allocate_contiguous(node.dtype(), node.shape());
  if constexpr (!is_elementwise(op)) {
    TJ_INTERNAL_CHECK(false) << "interpreter: " << op_name(op) << " is not elementwise";
  } else {
    TJ_INTERNAL_CHECK(static_cast<int>(inputs.size()) == info(op).arity)
        << "interpreter: " << op_name(op) << " has " << inputs.size() << " inputs";
    using Apply = StoredOp<op>;  // f16 and bf16 compute in f32 and round
    // The value operands' dtype: the last input (where's first input is its bool condition).
    visit_dtype(inputs.back().dtype, [&](auto operand_tag) {
      using T = typename decltype(operand_tag)::type;
      if constexpr (op == Op::cast) {
        visit_dtype(node.dtype(), [&](auto result_tag) {
          using To = typename decltype(result_tag)::type;
          map_elements<To, T>(op, result, inputs,
                              [](T x) { return Apply::template apply_cast<To>(x); });
        });
      } else if constexpr (!accepts_operand<T>(info(op).operands)) {
        TJ_INTERNAL_CHECK(false) << "interpreter: " << op_name(op) << " does not take "
                                 << dtype_name(dtype_of<T>()) << " operands";
      } else if constexpr (op == Op::where) {
        map_elements<T, bool, T, T>(op, result, inputs, [](bool condition, T a, T b) {
          return Apply::apply(condition, a, b);
        });
      } else if constexpr (info(op).arity == 1) {
        using R = decltype(Apply::apply(T{}));
        map_elements<R, T>(op, result, inputs, [](T x) { return Apply::apply(x); });
      } else {
        using R = decltype(Apply::apply(T{}, T{}));
        map_elements<R, T, T>(op, result, inputs, [](T a, T b) { return Apply::apply(a, b); });
      }
    });
  }
  return result;
}

using ElementwiseFunction = Value (*)(const Node&, std::span<const Value>);

template <std::size_t... Index>
constexpr std::array<ElementwiseFunction, sizeof...(Index)> make_elementwise_table(
    std::index_sequence<Index...>) {
  return {&evaluate_op<static_cast<Op>(Index)>...};
}

// One entry per op of ops.def, in enum order (non-elementwise entries throw InternalError).
constexpr auto kElementwiseTable = make_elementwise_table(std::make_index_sequence<kOpCount>{});

}  // namespace

Value allocate_contiguous(DType dtype, const Shape& shape) {
  const std::int64_t count = checked_numel(shape, "allocate");
  const auto size = static_cast<std::int64_t>(itemsize(dtype));
  TJ_CHECK(count <= std::numeric_limits<std::int64_t>::max() / size)
      << "allocate: " << dtype_name(dtype) << shape_str(shape) << " needs more than 2^63 bytes";
  return Value{Buffer::allocate(static_cast<std::size_t>(count * size)), dtype,
               Layout::contiguous(shape)};
}

Value copy_to_contiguous(const Value& value) {
  Value result = allocate_contiguous(value.dtype, value.layout.shape);
  switch (itemsize(value.dtype)) {
    case 1: copy_strided<std::uint8_t>(value, result); break;
    case 2: copy_strided<std::uint16_t>(value, result); break;
    case 4: copy_strided<std::uint32_t>(value, result); break;
    case 8: copy_strided<std::uint64_t>(value, result); break;
    default: TJ_INTERNAL_CHECK(false) << "interpreter: no copy for " << dtype_name(value.dtype);
  }
  return result;
}

Value evaluate_elementwise(const Node& node, std::span<const Value> inputs) {
  return kElementwiseTable[static_cast<int>(node.op())](node, inputs);
}

}  // namespace tensorjit::ir
