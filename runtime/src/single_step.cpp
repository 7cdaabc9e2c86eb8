// A single step: one node materialised by itself. Floating matmuls run on the packed GEMM of
// kernels/; everything else (reductions, integer matmuls, iota) runs on the reference interpreter
// until its issue gives it a kernel.
#include "runtime/src/single_step.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/interpreter.hpp>

#include "runtime/src/gemm_call.hpp"

namespace tensorjit::detail {
namespace {

bool runs_on_gemm(const ir::Node& node) {
  return node.op() == ir::Op::matmul && is_floating(node.dtype());
}

void run_single_step(const ir::Step& step, ValueTable& values) {
  const ir::NodePtr& node = step.nodes.front();
  if (runs_on_gemm(*node)) {
    ir::Value a = resolve_product_operand(values, node->input(0));
    ir::Value b = resolve_product_operand(values, node->input(1));
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(node->numel()) * itemsize(node->dtype()));
    ir::Value c{std::move(buffer), node->dtype(), ir::Layout::contiguous(node->shape())};
    if (node->numel() > 0) {
      if (node->dtype() == f32) run_gemm<float>(a, b, c);
      else run_gemm<double>(a, b, c);
    }
    values.put(node.get(), std::move(c));
    return;
  }
  std::vector<ir::NodePtr> inputs;
  for (const auto& in : node->inputs()) {
    ir::Value v = values.resolve(in);
    inputs.push_back(ir::make_input(v.buffer, v.dtype, v.layout));
  }
  ir::Graph one{{node->with_inputs(std::move(inputs))}};
  values.put(node.get(), ir::interpret(one).front());
}

struct PreparedSingle final : PreparedStep {
  void launch(const ir::Step& step, ValueTable& values, const StepDump&) const override {
    run_single_step(step, values);
  }
};

}  // namespace

std::shared_ptr<const PreparedStep> prepare_single_step(const ir::Step&, const ValueTable&, const StepDump&) {
  return std::make_shared<PreparedSingle>();
}

}  // namespace tensorjit::detail
