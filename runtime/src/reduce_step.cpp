// A reduce step: producer ops, one reduction, consumer ops (fuse_reductions.hpp) become one JIT'd
// reduction kernel (codegen/reduce_kernel.hpp). The reduction's input domain is split into kept and
// reduced axes, each merged where every operand allows; the work is split across the pool by whole
// outputs or, for a few large outputs, by whole blocks of the strict order, so the bits never
// depend on the thread count.
#include "runtime/src/reduce_step.hpp"

#include <algorithm>

#include <tensorjit/codegen/reduce_kernel.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>

#include "runtime/src/jit_instance.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/step_expression.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {

std::shared_ptr<const PreparedReduce> prepare_reduce_step(const ir::Step& step,
                                                          const ValueTable& values,
                                                          const StepDump& dump) {
  const auto reduction_at =
      std::find_if(step.nodes.begin(), step.nodes.end(),
                   [](const ir::NodePtr& n) { return ir::is_reduce(n->op()); });
  TJ_INTERNAL_CHECK(reduction_at != step.nodes.end()) << "reduce step: no reduction";
  const ir::NodePtr& reduction = *reduction_at;
  const ir::Shape& domain = reduction->input(0)->shape();
  const auto& attr = reduction->attr<ir::ReduceAttr>();
  const int rank = static_cast<int>(domain.size());
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (int axis : attr.axes) reduced[static_cast<std::size_t>(axis)] = true;

  codegen::ReduceKernelSpec spec;
  spec.op = reduction->op();
  BoundLeaves producer_leaves;
  ExpressionRebuilder producer(step.nodes.begin(), reduction_at, producer_leaves.binder(values));
  spec.producer.outputs.push_back(producer.rebuild(reduction->input(0)));
  spec.producer_inputs = producer_leaves.leaves;

  BoundLeaves consumer_leaves;
  ExpressionRebuilder consumer(reduction_at + 1, step.nodes.end(), consumer_leaves.binder(values));
  spec.result =
      ir::make_input(nullptr, reduction->dtype(), ir::Layout::contiguous(reduction->shape()));
  consumer.alias(reduction.get(), spec.result);
  for (const auto& out : step.outputs) spec.consumer.outputs.push_back(consumer.rebuild(out));
  spec.consumer_inputs = consumer_leaves.leaves;

  // Strides over kept and reduced axes. A consumer input lives on the result's shape, which with
  // keepdims holds an extent-1 axis in place of each reduced one.
  ir::Shape kept_shape, reduced_shape;
  for (int d = 0; d < rank; ++d) (reduced[d] ? reduced_shape : kept_shape).push_back(domain[d]);
  std::vector<ir::Strides> kept_strides, reduced_strides;
  for (const auto& value : producer_leaves.arguments) {
    kept_strides.emplace_back();
    reduced_strides.emplace_back();
    for (int d = 0; d < rank; ++d)
      (reduced[d] ? reduced_strides.back() : kept_strides.back())
          .push_back(value.layout.strides[d]);
  }
  for (const auto& value : consumer_leaves.arguments) {
    kept_strides.emplace_back();
    for (int d = 0; d < rank; ++d) {
      if (reduced[d]) continue;
      const int position = attr.keepdims ? d : static_cast<int>(kept_strides.back().size());
      kept_strides.back().push_back(value.layout.strides[position]);
    }
  }
  const MergedAxes kept = merge_axes(kept_shape, kept_strides);
  const MergedAxes inner = merge_axes(reduced_shape, reduced_strides);
  TJ_INTERNAL_CHECK(kept.shape.size() <= codegen::kMaxLoopRank &&
                    inner.shape.size() <= codegen::kMaxLoopRank)
      << "reduce step: rank " << rank << " domain";
  TJ_INTERNAL_CHECK(!codegen::is_arg_reduction(spec.op) || inner.shape.size() == 1)
      << "reduce step: " << ir::op_name(spec.op) << " over " << inner.shape.size() << " axes";
  for (const auto& s : inner.strides) spec.producer_access.push_back(classify_inner_stride(s.back()));
  // A column sum: no producer input walks the reduced axis contiguously but one walks the kept
  // axis so; tiles of outputs then read whole vectors along the kept axis. An input the same for
  // every output along the kept axis (stride 0 there: argmin's index along a column) is one small
  // vector read from cache either way, so it does not count.
  const std::size_t producer_count = producer_leaves.arguments.size();
  bool reduced_contiguous = false, kept_contiguous = false;
  for (std::size_t k = 0; k < producer_count; ++k) {
    reduced_contiguous =
        reduced_contiguous || (inner.strides[k].back() == 1 && kept.strides[k].back() != 0);
    kept_contiguous = kept_contiguous || kept.strides[k].back() == 1;
  }
  const std::int64_t tile = ir::reduction_lanes(
      itemsize(codegen::reduce_accumulator_dtype(spec.op, reduction->input(0)->dtype())));
  spec.vectorize_outputs = !reduced_contiguous && kept_contiguous && kept.shape.back() >= tile;
  if (spec.vectorize_outputs)
    for (std::size_t k = 0; k < producer_count; ++k)
      spec.producer_kept_access.push_back(classify_inner_stride(kept.strides[k].back()));

  auto prepared = std::make_shared<PreparedReduce>();
  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel =
      codegen::compile_reduce_kernel(jit(), spec, dump.folder.empty() ? nullptr : &request);
  prepared->partial_bytes = codegen::reduce_partial_bytes(spec.op, reduction->input(0)->dtype());
  prepared->leaves = producer_leaves.sources;
  prepared->leaves.insert(prepared->leaves.end(), consumer_leaves.sources.begin(),
                          consumer_leaves.sources.end());

  std::int64_t element_count = 1;
  prepared->output_count = 1;
  for (auto e : kept_shape) prepared->output_count *= e;
  for (auto e : reduced_shape) element_count *= e;
  constexpr std::size_t kStridesPerInput = 2 * codegen::kMaxLoopRank;
  prepared->input_strides.assign(prepared->leaves.size() * kStridesPerInput, 0);
  for (std::size_t k = 0; k < prepared->leaves.size(); ++k) {
    auto strides =
        prepared->input_strides.begin() + static_cast<std::ptrdiff_t>(k * kStridesPerInput);
    std::copy(kept.strides[k].begin(), kept.strides[k].end(), strides);
    if (k < producer_count)
      std::copy(inner.strides[k].begin(), inner.strides[k].end(), strides + codegen::kMaxLoopRank);
  }
  codegen::ReduceArgs& args = prepared->arguments;
  args.kept_rank = static_cast<std::int64_t>(kept.shape.size());
  std::copy(kept.shape.begin(), kept.shape.end(), args.kept_shape);
  args.reduced_rank = static_cast<std::int64_t>(inner.shape.size());
  std::copy(inner.shape.begin(), inner.shape.end(), args.reduced_shape);
  args.reduced_count = element_count;
  args.block_count = (element_count + ir::kReductionBlock - 1) / ir::kReductionBlock;
  return prepared;
}

void PreparedReduce::launch(const ir::Step& step, ValueTable& values, const StepDump&) const {
  const PreparedReduce& prepared = *this;
  const std::int64_t output_count = prepared.output_count;
  std::vector<void*> output_pointers;
  for (const auto& out : step.outputs) {
    auto buffer =  // every output is written, an empty reduction's too (its identity)
        ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(output_count) * itemsize(out->dtype()));
    output_pointers.push_back(buffer->data());
    values.put(out.get(),
               ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(out->shape())});
  }
  if (output_count == 0) return;
  // The plan fixes every layout; only the buffers change from one run to the next.
  std::vector<const void*> input_pointers;
  for (const auto& leaf : prepared.leaves)
    input_pointers.push_back(element_pointer(values.resolve(leaf)));
  codegen::ReduceArgs args = prepared.arguments;
  args.inputs = input_pointers.data();
  args.input_strides = prepared.input_strides.data();
  args.outputs = output_pointers.data();
  auto* function = prepared.kernel->as<codegen::ReduceFunction>();
  const std::int64_t element_count = args.reduced_count;

  const std::int64_t threads = pool_threads();
  const std::int64_t work = output_count * std::max<std::int64_t>(element_count, 1);
  const std::int64_t tasks = std::min<std::int64_t>(threads, work / kMinElementsPerTask);
  if (tasks <= 1) {
    function(&args, 0, output_count);
    return;
  }
  if (output_count >= tasks || args.block_count < tasks) {
    parallel_for(tasks, [&](std::int64_t t) {
      function(&args, output_count * t / tasks, output_count * (t + 1) / tasks);
    });
    return;
  }
  // Few outputs with many blocks each: threads reduce whole blocks into partials, then one call
  // combines each output's partials in order and runs the consumers.
  auto partials = ir::Buffer::allocate_uninitialized(
      static_cast<std::size_t>(output_count * args.block_count) * prepared.partial_bytes);
  args.partials = partials->data();
  parallel_for(tasks, [&](std::int64_t t) {
    codegen::ReduceArgs task_args = args;
    task_args.mode = 1;
    task_args.block_begin = args.block_count * t / tasks;
    task_args.block_end = args.block_count * (t + 1) / tasks;
    function(&task_args, 0, output_count);
  });
  args.mode = 2;
  function(&args, 0, output_count);
}

}  // namespace tensorjit::detail
