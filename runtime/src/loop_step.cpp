// A loop step: the group's ops become one JIT'd kernel over the step's domain, reading each
// input through its own strides and writing each output once, contiguously.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/jit_instance.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/plan_runner.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

// Below this many elements per thread a kernel runs on the caller: waking the pool costs more.
constexpr std::int64_t kMinElementsPerTask = 1 << 15;

}  // namespace

std::shared_ptr<const PreparedLoop> prepare_loop_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump) {
  std::unordered_set<const ir::Node*> inside;
  for (const auto& n : step.nodes) inside.insert(n.get());
  auto prepared = std::make_shared<PreparedLoop>();
  prepared->domain = step.nodes.front()->shape();

  // Leaves read from memory become the kernel's inputs; constants stay in its expression.
  std::unordered_map<const ir::Node*, ir::NodePtr> rebuilt;
  codegen::LoopKernelSpec spec;
  std::vector<ir::Strides> operand_strides;
  for (const auto& node : step.nodes)
    for (const auto& in : node->inputs()) {
      if (inside.count(in.get()) || rebuilt.count(in.get())) continue;
      if (in->op() == ir::Op::constant) {
        rebuilt[in.get()] = in;
        continue;
      }
      ir::Value value = values.resolve(in);
      rebuilt[in.get()] = ir::make_input(value.buffer, value.dtype, value.layout);
      spec.inputs.push_back(rebuilt[in.get()]);
      prepared->leaves.push_back(in);
      operand_strides.push_back(value.layout.strides);
    }
  for (const auto& node : step.nodes) {
    std::vector<ir::NodePtr> inputs;
    for (const auto& in : node->inputs()) inputs.push_back(rebuilt.at(in.get()));
    rebuilt[node.get()] = node->with_inputs(std::move(inputs));
  }
  for (const auto& out : step.outputs) spec.expression.outputs.push_back(rebuilt.at(out.get()));

  MergedAxes collapsed = merge_axes(prepared->domain, operand_strides);
  TJ_INTERNAL_CHECK(collapsed.shape.size() <= static_cast<std::size_t>(codegen::kMaxLoopRank))
      << "loop step: rank " << collapsed.shape.size() << " domain";
  for (const auto& s : collapsed.strides) spec.access.push_back(classify_inner_stride(s.back()));
  prepared->collapsed_shape = collapsed.shape;
  prepared->input_strides.assign(prepared->leaves.size() * codegen::kMaxLoopRank, 0);
  for (std::size_t k = 0; k < prepared->leaves.size(); ++k)
    std::copy(collapsed.strides[k].begin(), collapsed.strides[k].end(),
              prepared->input_strides.begin() + static_cast<std::ptrdiff_t>(k * codegen::kMaxLoopRank));

  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel = codegen::compile_loop_kernel(jit(), spec, dump.folder.empty() ? nullptr : &request);
  return prepared;
}

void launch_loop_step(const PreparedLoop& prepared, const ir::Step& step, ValueTable& values) {
  std::int64_t numel = 1;
  for (auto e : prepared.domain) numel *= e;
  // The plan fixes every layout; only the buffers change from one run to the next.
  std::vector<const void*> input_pointers;
  input_pointers.reserve(prepared.leaves.size());
  for (const auto& leaf : prepared.leaves) input_pointers.push_back(values.first_element(leaf));
  std::vector<void*> output_pointers;
  for (const auto& out : step.outputs) {
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(numel) * itemsize(out->dtype()));
    output_pointers.push_back(buffer->data());
    values.put(out.get(), ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(prepared.domain)});
  }
  if (numel == 0) return;

  codegen::LoopArgs args{};
  args.rank = static_cast<std::int64_t>(prepared.collapsed_shape.size());
  std::copy(prepared.collapsed_shape.begin(), prepared.collapsed_shape.end(), args.shape);
  args.inputs = input_pointers.data();
  args.input_strides = prepared.input_strides.data();
  args.outputs = output_pointers.data();
  auto* function = prepared.kernel->as<codegen::LoopFunction>();

  const std::int64_t tasks = std::min<std::int64_t>(pool_threads(), numel / kMinElementsPerTask);
  if (tasks <= 1) {
    function(&args, 0, numel);
    return;
  }
  // Cut points on multiples of 64 elements, so each piece's vectors start on a cache line.
  parallel_for(tasks, [&](std::int64_t t) {
    auto cut = [&](std::int64_t i) { return i == tasks ? numel : numel * i / tasks / 64 * 64; };
    function(&args, cut(t), cut(t + 1));
  });
}

}  // namespace tensorjit::detail
