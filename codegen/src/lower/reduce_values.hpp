// The values a reduction kernel combines with: the combining op, the lanes' neutral start and the
// result of no elements, per reduction and accumulator dtype (ir/reduction_order.hpp).
#pragma once

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/op.hpp>

namespace tensorjit::codegen {

// The elementwise op that combines two accumulators of `dtype` for reduction `op`.
ir::Op combine_op(ir::Op op, DType dtype);

// The lanes' starting value: leaves every element unchanged.
ir::Scalar neutral_value(ir::Op op, DType dtype);

// The result of no elements: 0 for sums (not the neutral -0.0), else the neutral value.
ir::Scalar identity_value(ir::Op op, DType dtype);

}  // namespace tensorjit::codegen
