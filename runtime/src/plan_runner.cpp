#include "runtime/src/plan_runner.hpp"

#include <fmt/format.h>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/node_map.hpp>
#include <tensorjit/ir/view.hpp>

namespace tensorjit::detail {

ir::Value ValueTable::resolve(const ir::NodePtr& node) const {
  if (auto it = values_.find(node.get()); it != values_.end()) return it->second;
  switch (node->op()) {
    case ir::Op::input: {
      const auto& in = node->attr<ir::InputAttr>();
      TJ_INTERNAL_CHECK(in.buffer) << "plan: input " << ir::shape_str(in.layout.shape) << " has no buffer";
      if (auto bound = bindings_.find(in.buffer.get()); bound != bindings_.end())
        return ir::Value{bound->second, in.dtype, in.layout};
      return ir::Value{in.buffer, in.dtype, in.layout};
    }
    case ir::Op::constant: {
      const auto& c = node->attr<ir::ConstantAttr>();
      auto buffer = ir::Buffer::allocate(itemsize(c.dtype));
      visit_dtype(c.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        *static_cast<T*>(buffer->data()) =
            is_floating(c.dtype) ? static_cast<T>(c.value.f) : static_cast<T>(c.value.i);
      });
      return ir::Value{std::move(buffer), c.dtype, ir::Layout{c.shape, ir::Strides(c.shape.size(), 0), 0}};
    }
    default: break;
  }
  TJ_INTERNAL_CHECK(ir::is_movement(node->op()))
      << "plan: " << ir::op_name(node->op()) << " " << ir::shape_str(node->shape())
      << " is read before any step computed it";
  ir::Value base = resolve(node->input(0));
  auto layout = ir::apply_view(base.layout, *node);
  TJ_INTERNAL_CHECK(layout) << "plan: a " << ir::op_name(node->op()) << " over a materialised value "
                            << "cannot be expressed by strides";
  return ir::Value{base.buffer, base.dtype, std::move(*layout)};
}

const void* ValueTable::first_element(const ir::NodePtr& node) const {
  auto address = [](const std::shared_ptr<ir::Buffer>& buffer, DType dtype, std::int64_t offset) -> const void* {
    return static_cast<const char*>(buffer->data()) + offset * static_cast<std::int64_t>(itemsize(dtype));
  };
  if (auto it = values_.find(node.get()); it != values_.end())
    return address(it->second.buffer, it->second.dtype, it->second.layout.offset);
  if (node->op() == ir::Op::input) {
    const auto& in = node->attr<ir::InputAttr>();
    if (auto bound = bindings_.find(in.buffer.get()); bound != bindings_.end())
      return address(bound->second, in.dtype, in.layout.offset);
  }
  ir::Value value = resolve(node);
  return address(value.buffer, value.dtype, value.layout.offset);
}

std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times, ValueTable values, PlanCache* cache) {
  // Each materialised value is dropped after the last step that reads it (or kept if an output).
  ir::NodeMap<std::size_t> last_reader;
  auto note_reads = [&](const ir::NodePtr& node, std::size_t step) {
    last_reader[ir::view_base(node.get())] = step;
  };
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (const auto& node : plan.steps[s].nodes)
      for (const auto& in : node->inputs()) note_reads(in, s);
  for (const auto& out : plan.graph.outputs) note_reads(out, plan.steps.size());

  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const ir::Step& step = plan.steps[s];
    const auto start = std::chrono::steady_clock::now();
    if (step.kind == ir::Step::Kind::loop) {
      StepDump dump;
      if (!dump_folder.empty()) dump = {dump_folder, fmt::format("kernel-{:03}", s)};
      std::shared_ptr<const PreparedLoop> prepared = cache && dump.folder.empty() ? cache->loops[s].load() : nullptr;
      if (!prepared) {
        prepared = prepare_loop_step(step, values, dump);
        if (cache) cache->loops[s].store(prepared);
      }
      launch_loop_step(*prepared, step, values);
    } else if (step.kind == ir::Step::Kind::product) {
      StepDump dump;
      if (!dump_folder.empty()) dump = {dump_folder, fmt::format("kernel-{:03}-epilogue", s)};
      std::shared_ptr<const PreparedProduct> prepared =
          cache && dump.folder.empty() ? cache->products[s].load() : nullptr;
      if (!prepared) {
        prepared = prepare_product_step(step, values, dump);
        if (cache) cache->products[s].store(prepared);
      }
      launch_product_step(*prepared, step, values);
    } else if (step.kind == ir::Step::Kind::reduce) {
      StepDump dump;
      if (!dump_folder.empty()) dump = {dump_folder, fmt::format("kernel-{:03}", s)};
      std::shared_ptr<const PreparedReduce> prepared =
          cache && dump.folder.empty() ? cache->reduces[s].load() : nullptr;
      if (!prepared) {
        prepared = prepare_reduce_step(step, values, dump);
        if (cache) cache->reduces[s].store(prepared);
      }
      launch_reduce_step(*prepared, step, values);
    } else if (step.kind == ir::Step::Kind::row) {
      StepDump dump;
      if (!dump_folder.empty()) dump = {dump_folder, fmt::format("kernel-{:03}", s)};
      std::shared_ptr<const PreparedRow> prepared =
          cache && dump.folder.empty() ? cache->rows[s].load() : nullptr;
      if (!prepared) {
        prepared = prepare_row_kernel_step(step, values, dump);
        if (cache) cache->rows[s].store(prepared);
      }
      if (prepared->kernel)
        launch_row_kernel_step(*prepared, step, values);
      else
        run_row_step(step, values, dump);
    } else {
      run_single_step(step, values);
    }
    if (times) times->steps.push_back(std::chrono::steady_clock::now() - start);
    for (const auto& node : step.nodes)
      for (const auto& in : node->inputs()) {
        const ir::Node* n = ir::view_base(in.get());
        if (*last_reader.find(n) == s) values.drop(n);
      }
  }
  std::vector<ir::Value> outputs;
  for (const auto& out : plan.graph.outputs) outputs.push_back(values.resolve(out));
  return outputs;
}

}  // namespace tensorjit::detail
