// A loop kernel's expression flattened into a list the lowering walks and the key prints: one
// entry per distinct node, operands before their users, each naming its operands by position.
// LLVM-free. Built once per compile_loop_kernel call from the LoopKernelSpec; it holds no shapes,
// sizes or buffers, so everything in it belongs in the kernel's key (docs/contracts.md, contract 7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>

namespace tensorjit::codegen {

// An iota leaf's values (ir::IotaAttr without its layout, which the kernel's strides carry).
struct IotaLeaf {
  double start = 0;
  double step = 1;
};

// What a kernel input is: memory of `dtype`, or an iota of it (leaf_values.hpp reads either).
struct LeafSource {
  DType dtype = DType::f32;
  std::optional<IotaLeaf> iota;
};

struct LoopPlanNode {
  ir::Op op = ir::Op::constant;
  DType dtype = DType::f32;           // the node's result dtype (a cast's target)
  std::vector<int> operands;          // positions in LoopPlan::nodes, all earlier than this one
  int input_index = -1;               // input and iota leaves (op input): position in LoopKernelSpec::inputs
  ir::Scalar constant;                // constant leaves: the value, as the interpreter reads it
};

struct LoopPlan {
  std::vector<LoopPlanNode> nodes;    // topological order
  std::vector<int> outputs;           // positions in `nodes`, one per kernel output
  std::vector<DType> input_dtypes;    // one per LoopKernelSpec input
  std::vector<std::optional<IotaLeaf>> input_iotas;  // one per input: set for an iota leaf
  std::vector<bool> input_gathered;   // one per input: read only by gathers, at their indices
  std::vector<InnerAccess> access;    // one per LoopKernelSpec input
  LoopForm form = LoopForm::flat;     // LoopKernelSpec::form
  std::vector<InnerAccess> output_access;  // one per output (LoopKernelSpec::output_access)
  bool streaming_stores = false;      // LoopKernelSpec::streaming_stores
  std::vector<bool> fetched_by_caller;  // one per input (LoopKernelSpec::fetched_by_caller)

  LeafSource source(std::size_t k) const { return {input_dtypes[k], input_iotas[k]}; }
};

// Flattens `spec`. Throws InternalError when the spec breaks loop_kernel.hpp's contract: an op
// that is not elementwise or a gather, a gather whose operand 0 is not an input leaf that only
// gathers read, a gather in a tile kernel, an input leaf missing from spec.inputs, an access list of the wrong
// length, fetched-by-caller flags of the wrong length or on a flat kernel, a kernel without outputs.
LoopPlan make_loop_plan(const LoopKernelSpec& spec);

// The plan as text: the structural key of loop_kernel_key, readable in logs and dumps.
std::string loop_plan_text(const LoopPlan& plan);

}  // namespace tensorjit::codegen
