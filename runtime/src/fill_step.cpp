// A fill step (ir/passes/fuse.cpp): the constant a user asked for as a result is given a buffer of
// its own, filled contiguously, as users expect of a result (a constant read by an op is a literal
// or an argument of that op's kernel instead, and needs no buffer).
#include "runtime/src/fill_step.hpp"

#include <algorithm>

#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::detail {
namespace {

struct PreparedFill final : PreparedStep {
  void launch(const ir::Step& step, ValueTable& values, const StepDump&) const override {
    const ir::NodePtr& node = step.nodes.front();
    const auto& constant = node->attr<ir::ConstantAttr>();
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(node->numel()) * itemsize(constant.dtype));
    visit_dtype(constant.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::fill_n(static_cast<T*>(buffer->data()), node->numel(), ir::scalar_value<T>(constant.value));
    });
    values.put(node.get(), ir::Value{std::move(buffer), constant.dtype, ir::Layout::contiguous(constant.shape)});
  }
};

}  // namespace

std::shared_ptr<const PreparedStep> prepare_fill_step(const ir::Step&, const ValueTable&, const StepDump&) {
  return std::make_shared<PreparedFill>();
}

}  // namespace tensorjit::detail
