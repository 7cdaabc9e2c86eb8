// The values of a LoopPlan's nodes on `lanes` lanes, shared by the kernel families that evaluate
// an elementwise expression around their own loop nest: input leaf k is load_input(k), constants
// are splats, every op is ElementwiseEmitter's formula (the same instructions per lane at any lane
// count). Internal to codegen/src.
#pragma once

#include <vector>

#include "codegen/src/lower/emit_elementwise.hpp"
#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

template <typename LoadInput>
std::vector<llvm::Value*> emit_plan_values(ElementwiseEmitter& emitter, const LoopPlan& plan, LoadInput load_input) {
  std::vector<llvm::Value*> values(plan.nodes.size(), nullptr);
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const LoopPlanNode& node = plan.nodes[n];
    if (node.op == ir::Op::input) {
      values[n] = load_input(static_cast<std::size_t>(node.input_index));
    } else if (node.op == ir::Op::constant) {
      values[n] = emitter.constant(node.dtype, node.constant);
    } else {
      std::vector<llvm::Value*> operands;
      for (int operand : node.operands) operands.push_back(values[static_cast<std::size_t>(operand)]);
      const DType operand_dtype = plan.nodes[static_cast<std::size_t>(node.operands.back())].dtype;
      values[n] = emitter.emit(node.op, node.dtype, operand_dtype, operands);
    }
  }
  return values;
}

}  // namespace tensorjit::codegen
