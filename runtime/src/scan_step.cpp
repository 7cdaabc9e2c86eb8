// A scan step: the scan's domain is split into the scanned axis and the line axes (the others,
// merged where every operand and output allows), each line one independent scan; the lines are
// split across the pool in whole strips, so the bits never depend on the thread count.
#include "runtime/src/scan_step.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/jit_instance.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/step_expression.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

// Lines per task are a multiple of this, so that each task's lines fill whole strips of lanes
// (codegen/src/lower/lower_scan.cpp: at most 8 registers of 64 lanes).
constexpr std::int64_t kLineGrain = 512;

}  // namespace

std::shared_ptr<const PreparedScan> prepare_scan_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump) {
  const auto scan_at = std::find_if(step.nodes.begin(), step.nodes.end(),
                                    [](const ir::NodePtr& n) { return ir::is_scan(n->op()); });
  TJ_INTERNAL_CHECK(scan_at != step.nodes.end()) << "scan step: no scan";
  const ir::NodePtr& scan = *scan_at;
  const ir::Shape& domain = scan->shape();
  const auto axis = static_cast<std::size_t>(scan->attr<ir::ScanAttr>().axis);

  codegen::ScanKernelSpec spec;
  spec.op = scan->op();
  BoundLeaves producer_leaves;
  ExpressionRebuilder producer(step.nodes.begin(), scan_at, producer_leaves.binder(values));
  spec.producer.outputs.push_back(producer.rebuild(scan->input(0)));
  spec.producer_inputs = producer_leaves.leaves;
  BoundLeaves consumer_leaves;
  ExpressionRebuilder consumer(scan_at + 1, step.nodes.end(), consumer_leaves.binder(values));
  spec.result = ir::make_input(nullptr, scan->dtype(), ir::Layout::contiguous(domain));
  consumer.alias(scan.get(), spec.result);
  for (const auto& out : step.outputs) spec.consumer.outputs.push_back(consumer.rebuild(out));
  spec.consumer_inputs = consumer_leaves.leaves;

  auto prepared = std::make_shared<PreparedScan>();
  prepared->leaves = producer_leaves.sources;
  prepared->leaves.insert(prepared->leaves.end(), consumer_leaves.sources.begin(), consumer_leaves.sources.end());
  std::vector<ir::Strides> all_strides;
  for (const auto* arguments : {&producer_leaves.arguments, &consumer_leaves.arguments})
    for (const auto& value : *arguments) all_strides.push_back(value.layout.strides);
  for (const auto& out : step.outputs) all_strides.push_back(ir::contiguous_strides(out->shape()));

  // The line axes (all but the scanned one), merged; the scanned axis's stride kept apart.
  ir::Shape line_shape;
  std::vector<ir::Strides> line_strides(all_strides.size());
  for (std::size_t d = 0; d < domain.size(); ++d) {
    if (d == axis) continue;
    line_shape.push_back(domain[d]);
    for (std::size_t k = 0; k < all_strides.size(); ++k) line_strides[k].push_back(all_strides[k][d]);
  }
  const MergedAxes lines = merge_axes(line_shape, line_strides);
  TJ_INTERNAL_CHECK(lines.shape.size() <= codegen::kMaxLoopRank) << "scan step: rank " << domain.size() << " domain";
  const std::size_t input_count = prepared->leaves.size();
  for (std::size_t k = 0; k < all_strides.size(); ++k) {
    std::vector<std::int64_t>& strides = k < input_count ? prepared->input_strides : prepared->output_strides;
    const std::size_t first = strides.size();
    strides.resize(first + codegen::kScanStrides, 0);
    std::copy(lines.strides[k].begin(), lines.strides[k].end(), strides.begin() + static_cast<std::ptrdiff_t>(first));
    strides[first + codegen::kMaxLoopRank] = all_strides[k][axis];
    const codegen::InnerAccess access = classify_inner_stride(lines.strides[k].back());
    if (k < input_count) spec.input_access.push_back(access);
    else  // a single line: its one column has stride 0, which a write walks like any stride
      spec.output_access.push_back(access == codegen::InnerAccess::broadcast ? codegen::InnerAccess::strided : access);
  }

  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel = codegen::compile_scan_kernel(jit(), spec, dump.folder.empty() ? nullptr : &request);
  codegen::ScanArgs& args = prepared->arguments;
  args.line_rank = static_cast<std::int64_t>(lines.shape.size());
  std::copy(lines.shape.begin(), lines.shape.end(), args.line_shape);
  args.extent = domain[axis];
  prepared->line_count = 1;
  for (auto extent : lines.shape) prepared->line_count *= extent;
  return prepared;
}

void PreparedScan::launch(const ir::Step& step, ValueTable& values, const StepDump&) const {
  std::vector<void*> output_pointers;
  for (const auto& out : step.outputs) {
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(out->numel()) * itemsize(out->dtype()));
    output_pointers.push_back(buffer->data());
    values.put(out.get(), ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(out->shape())});
  }
  if (line_count == 0 || arguments.extent == 0) return;
  std::vector<const void*> input_pointers;
  for (const auto& leaf : leaves) input_pointers.push_back(element_pointer(values.resolve(leaf)));
  codegen::ScanArgs args = arguments;
  args.inputs = input_pointers.data();
  args.input_strides = input_strides.data();
  args.outputs = output_pointers.data();
  args.output_strides = output_strides.data();
  auto* function = kernel->as<codegen::ScanFunction>();
  const std::int64_t work = line_count * args.extent;
  // Few lines (a few long rows) are split line by line instead.
  const std::int64_t grain = line_count >= kLineGrain * pool_threads() ? kLineGrain : 1;
  const std::int64_t grains = (line_count + grain - 1) / grain;
  const std::int64_t tasks = std::min<std::int64_t>({pool_threads(), work / kMinElementsPerTask, grains});
  if (tasks <= 1) {
    function(&args, 0, line_count);
    return;
  }
  parallel_for(tasks, [&](std::int64_t t) {
    const std::int64_t begin = std::min(line_count, grains * t / tasks * grain);
    const std::int64_t end = std::min(line_count, grains * (t + 1) / tasks * grain);
    function(&args, begin, end);
  });
}

}  // namespace tensorjit::detail
