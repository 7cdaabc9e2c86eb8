#include "codegen/src/lower/reduce_values.hpp"

#include <limits>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen {

ir::Op combine_op(ir::Op op, DType dtype) {
  const bool boolean = dtype == DType::boolean;
  switch (op) {
    case ir::Op::reduce_sum:
      return ir::Op::add;
    case ir::Op::reduce_prod:
      return ir::Op::mul;
    case ir::Op::reduce_max:
      return boolean ? ir::Op::logical_or : ir::Op::maximum;
    case ir::Op::reduce_min:
      return boolean ? ir::Op::logical_and : ir::Op::minimum;
    case ir::Op::reduce_any:
      return ir::Op::logical_or;
    case ir::Op::reduce_all:
      return ir::Op::logical_and;
    // argmax and argmin compare rather than combine; their lanes start at max's and min's
    // neutral values.
    case ir::Op::argmax:
      return combine_op(ir::Op::reduce_max, dtype);
    case ir::Op::argmin:
      return combine_op(ir::Op::reduce_min, dtype);
    default:
      break;
  }
  TJ_INTERNAL_CHECK(false) << "reduce kernel: no combining op for " << ir::op_name(op);
  return ir::Op::add;  // not reached: the check throws
}

ir::Scalar neutral_value(ir::Op op, DType dtype) {
  const double infinity = std::numeric_limits<double>::infinity();
  switch (combine_op(op, dtype)) {
    case ir::Op::add:
      return is_floating(dtype) ? ir::Scalar::of(dtype, -0.0) : ir::Scalar::of_int(dtype, 0);
    case ir::Op::mul:
      return ir::Scalar::of_int(dtype, 1);
    case ir::Op::maximum:
      if (is_floating(dtype)) return ir::Scalar::of(dtype, -infinity);
      return ir::Scalar::of_int(dtype, dtype == DType::i32
                                           ? std::numeric_limits<std::int32_t>::min()
                                           : std::numeric_limits<std::int64_t>::min());
    case ir::Op::minimum:
      if (is_floating(dtype)) return ir::Scalar::of(dtype, infinity);
      return ir::Scalar::of_int(dtype, dtype == DType::i32
                                           ? std::numeric_limits<std::int32_t>::max()
                                           : std::numeric_limits<std::int64_t>::max());
    case ir::Op::logical_or:
      return ir::Scalar::of_int(dtype, 0);
    default:
      return ir::Scalar::of_int(dtype, 1);  // logical_and
  }
}

ir::Scalar identity_value(ir::Op op, DType dtype) {
  if (op == ir::Op::reduce_sum) return ir::Scalar::of_int(dtype, 0);
  return neutral_value(op, dtype);
}

}  // namespace tensorjit::codegen
