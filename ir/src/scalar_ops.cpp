// evaluate_scalar: ScalarOp<op> on Scalar values, through a table generated from ops.def.
#include <tensorjit/ir/scalar_ops.hpp>

#include <array>
#include <utility>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

namespace tensorjit::ir {
namespace {

using ScalarFunction = Scalar (*)(DType operand_dtype, DType result_dtype,
                                  std::span<const Scalar> operands);

template <Op op, typename T> Scalar apply_to_scalars(DType result_dtype,
                                                     std::span<const Scalar> operands) {
  using Apply = StoredOp<op>;
  if constexpr (op == Op::cast) {
    return visit_dtype(result_dtype, [&](auto result_tag) {
      using To = typename decltype(result_tag)::type;
      return make_scalar(Apply::template apply_cast<To>(scalar_value<T>(operands[0])));
    });
  } else if constexpr (op == Op::where) {
    return make_scalar(Apply::apply(scalar_value<bool>(operands[0]), scalar_value<T>(operands[1]),
                                    scalar_value<T>(operands[2])));
  } else if constexpr (info(op).arity == 1) {
    return make_scalar(Apply::apply(scalar_value<T>(operands[0])));
  } else {
    return make_scalar(Apply::apply(scalar_value<T>(operands[0]), scalar_value<T>(operands[1])));
  }
}

template <Op op> Scalar evaluate_op(DType operand_dtype, DType result_dtype,
                                    std::span<const Scalar> operands) {
  if constexpr (!is_elementwise(op)) {
    TJ_INTERNAL_CHECK(false) << "evaluate_scalar: "
              << op_name(op) << " is not an elementwise op";
  } else {
    TJ_INTERNAL_CHECK(static_cast<int>(operands.size()) == info(op).arity)
        << "evaluate_scalar: " << op_name(op) << " takes " << info(op).arity << " operands, not "
        << operands.size();
    return visit_dtype(operand_dtype, [&](auto operand_tag) -> Scalar {
      using T = typename decltype(operand_tag)::type;
      if constexpr (accepts_operand<T>(info(op).operands)) {
        return apply_to_scalars<op, T>(result_dtype, operands);
      } else {
        TJ_INTERNAL_CHECK(false) << "evaluate_scalar: "
                  << op_name(op) << " does not take " << dtype_name(operand_dtype) << " operands";
      }
    });
  }
}

template <std::size_t... Index>
constexpr std::array<ScalarFunction, sizeof...(Index)> make_scalar_table(
    std::index_sequence<Index...>) {
  return {&evaluate_op<static_cast<Op>(Index)>...};
}

// One entry per op of ops.def, in enum order.
constexpr auto kScalarTable = make_scalar_table(std::make_index_sequence<kOpCount>{});

}  // namespace

Scalar evaluate_scalar(Op op, DType operand_dtype, DType result_dtype,
                       std::span<const Scalar> operands) {
  return kScalarTable[static_cast<int>(op)](operand_dtype, result_dtype, operands);
}

}  // namespace tensorjit::ir
