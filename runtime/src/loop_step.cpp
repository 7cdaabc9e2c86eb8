// A loop step: the group's ops become one JIT'd kernel over the step's domain, reading each
// input through its own strides and writing each output once, contiguously.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <memory_resource>
#include <span>
#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/indexing.hpp>

#include "runtime/src/block_copy.hpp"
#include "runtime/src/config.hpp"
#include "runtime/src/jit_instance.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/loop_step.hpp"
#include "runtime/src/step_expression.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

// Streaming stores. A flat kernel whose outputs together take TENSORJIT_STREAMING_MB (default
// 16 MiB: half the 32 MiB last-level cache of this machine's cores, which the data they are
// computed from shares) or more writes them with non-temporal stores
// (codegen::LoopKernelSpec::streaming_stores): they would not stay in the cache anyway, and an
// ordinary store first reads each line it writes, a third more traffic for a + b.
// Output buffers are 64-byte aligned (ir::Buffer), as such kernels require.
bool streams_outputs(const ir::Step& step, const ir::Shape& domain) {
  std::size_t bytes = 0;
  std::size_t numel = 1;
  for (auto extent : domain) numel *= static_cast<std::size_t>(extent);
  for (const auto& out : step.outputs) bytes += numel * itemsize(out->dtype());
  return config().streams(bytes);
}

// Streaming stores need each vector store aligned to its size. The flat form counts alignment
// from the outputs' first elements, so a placed output must start on a 64-byte boundary of its
// concat's buffer; the placed form counts it from output 0's address, which says nothing of the
// others', and a strided output stores single elements: one contiguous output only.
bool may_stream(const PreparedLoop& prepared, const codegen::LoopKernelSpec& spec) {
  if (spec.form == codegen::LoopForm::tile) return false;
  if (spec.form == codegen::LoopForm::placed)
    return spec.output_access.size() == 1 && spec.output_access.front() == codegen::InnerAccess::contiguous;
  for (std::size_t j = 0; j < prepared.places.size(); ++j) {
    const auto& place = prepared.places[j];
    const auto bytes = place.layout.offset * static_cast<std::int64_t>(itemsize(spec.expression.outputs[j]->dtype()));
    if (place.into && bytes % 64 != 0) return false;
  }
  return true;
}

// Tiles. A rank-2 domain with an input read transposed (its outer axis walks memory more closely
// than its inner one, as b in a + b.T) is run in blocks of 64 x 64, and each block of such an
// input is first copied into a scratch tile that the kernel then reads as contiguous. Read in
// place, a vector of b.T gathers one element from each of 16 rows of b; when b's rows are a power
// of two apart (4096 floats: 16 KiB) those rows' lines all fall into the same L1 set, and the 64
// lines a block needs do not stay in a 12-way set: every gathered element came from L2 or memory
// (a + b.T took 39 ms for 4096 x 4096 f32, 8x the time to stream its bytes). The copy reads each
// of the block's rows of b along its contiguous axis, once, prefetching the next block's
// (runtime/src/block_copy.cpp), and the tile's rows are 256 bytes apart. The other operands read
// and write 256-byte row pieces of the block.
constexpr std::int64_t kTileRows = 64;
constexpr std::int64_t kTileColumns = 64;

bool read_transposed(const ir::Strides& strides) {
  if (strides.size() != 2) return false;
  const std::int64_t outer = std::abs(strides[0]), inner = std::abs(strides[1]);
  return inner > 1 && outer < inner;
}

// Runs a tile-form kernel over the whole domain, block by block, blocks of rows split across
// threads. Pointers are offset to each block's first element, and the kernel reads the domain's
// strides, but for the staged inputs, which it reads from their scratch tiles.
void launch_tiles(const PreparedLoop& prepared, std::span<const void* const> inputs, std::span<void* const> outputs,
                  std::span<const std::int64_t> output_itemsizes) {
  const std::int64_t rows = prepared.collapsed_shape[0], columns = prepared.collapsed_shape[1];
  const std::int64_t tile_rows = prepared.tile_rows, tile_columns = prepared.tile_columns;
  const std::vector<std::int64_t> output_strides(outputs.size() * codegen::kMaxLoopRank, columns);
  auto* function = prepared.kernel->as<codegen::LoopFunction>();
  auto run_block_rows = [&](std::int64_t first, std::int64_t last) {
    std::vector<const void*> block_inputs(inputs.size());
    std::vector<void*> block_outputs(outputs.size());
    std::vector<std::vector<std::uint64_t>> scratch(prepared.staged.size());
    for (std::size_t s = 0; s < prepared.staged.size(); ++s) {
      const std::int64_t bytes = tile_rows * tile_columns * prepared.input_itemsizes[prepared.staged[s].leaf];
      scratch[s].resize(static_cast<std::size_t>(bytes + 7) / 8);
    }
    codegen::LoopArgs args{};
    args.rank = 2;
    args.input_strides = prepared.input_strides.data();
    args.output_strides = output_strides.data();
    args.inputs = block_inputs.data();
    args.outputs = block_outputs.data();
    for (std::int64_t block_row = first; block_row < last; ++block_row) {
      const std::int64_t r0 = block_row * tile_rows;
      args.shape[0] = std::min(tile_rows, rows - r0);
      for (std::int64_t c0 = 0; c0 < columns; c0 += tile_columns) {
        args.shape[1] = std::min(tile_columns, columns - c0);
        for (std::size_t k = 0; k < inputs.size(); ++k) {
          const std::int64_t* strides = &prepared.input_strides[k * codegen::kMaxLoopRank];
          block_inputs[k] = static_cast<const char*>(inputs[k]) +
                            (r0 * strides[0] + c0 * strides[1]) * prepared.input_itemsizes[k];
        }
        for (std::size_t s = 0; s < prepared.staged.size(); ++s) {
          const auto& staged = prepared.staged[s];
          const std::int64_t itemsize = prepared.input_itemsizes[staged.leaf];
          const void* source = static_cast<const char*>(inputs[staged.leaf]) +
                               (r0 * staged.row_stride + c0 * staged.column_stride) * itemsize;
          copy_block(source, itemsize, staged.row_stride, staged.column_stride, args.shape[0], args.shape[1],
                     scratch[s].data(), tile_columns);
          block_inputs[staged.leaf] = scratch[s].data();
        }
        for (std::size_t j = 0; j < outputs.size(); ++j)
          block_outputs[j] = static_cast<char*>(outputs[j]) + (r0 * columns + c0) * output_itemsizes[j];
        function(&args, 0, 0);
      }
    }
  };
  const std::int64_t block_rows = (rows + tile_rows - 1) / tile_rows;
  const std::int64_t tasks = std::min<std::int64_t>({pool_threads(), block_rows, rows * columns / kMinElementsPerTask});
  if (tasks <= 1) {
    run_block_rows(0, block_rows);
    return;
  }
  parallel_for(tasks, [&](std::int64_t t) { run_block_rows(block_rows * t / tasks, block_rows * (t + 1) / tasks); });
}

}  // namespace

void throw_first_index_fault(const std::vector<ir::NodePtr>& gathers, std::span<const codegen::IndexFault> faults) {
  const codegen::IndexFault* first = nullptr;
  for (const auto& fault : faults)
    if (fault.found && (!first || fault.position < first->position)) first = &fault;
  if (!first) return;
  const auto input = static_cast<std::size_t>(first->input);
  TJ_INTERNAL_CHECK(input < gathers.size() && gathers[input])
      << "step: input " << first->input << " reported an index but is not gathered";
  ir::throw_index_out_of_range(*gathers[input], first->index, first->position);
}

std::shared_ptr<const PreparedLoop> prepare_loop_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump, LoopLaunch launch,
                                                     std::vector<OutputPlace> places) {
  auto prepared = std::make_shared<PreparedLoop>();
  prepared->domain = step.nodes.front()->shape();
  TJ_INTERNAL_CHECK(places.empty() || places.size() == step.outputs.size())
      << "loop step: " << places.size() << " places for " << step.outputs.size() << " outputs";
  prepared->places = std::move(places);

  // Leaves read from memory become the kernel's inputs; constants stay in its expression.
  codegen::LoopKernelSpec spec;
  std::vector<ir::Strides> operand_strides;
  ExpressionRebuilder expression(step.nodes, [&](const ir::NodePtr& read) {
    ir::Value value = values.resolve(read);
    spec.inputs.push_back(values.kernel_leaf(read, value));
    prepared->leaves.push_back(read);
    operand_strides.push_back(value.layout.strides);
    prepared->gathers.push_back(nullptr);
    prepared->gather_bounds.insert(prepared->gather_bounds.end(), {0, 0});
    prepared->fixed_pointers.push_back(nullptr);
    return spec.inputs.back();
  });
  // A gathered value is a leaf over the domain: its strides with the indexed axis's at 0, and the
  // axis's extent and stride beside them. An axis of no elements has nothing to read: every index
  // is out of range, and the kernel's lanes read one zero element instead. A literal constant is
  // read from a one-element buffer the prepared step holds.
  expression.on_gather([&](const ir::NodePtr& gather, const ir::NodePtr& data) {
    ir::Value value = values.resolve(data);
    const auto axis = static_cast<std::size_t>(gather->attr<ir::IndexAttr>().axis);
    ir::Layout layout = value.layout;
    const std::int64_t extent = layout.shape[axis], axis_stride = layout.strides[axis];
    layout.shape = gather->shape();
    layout.strides[axis] = 0;
    if (extent == 0) layout = ir::Layout{gather->shape(), ir::Strides(layout.shape.size(), 0), 0};
    spec.inputs.push_back(ir::make_input(extent == 0 ? nullptr : value.buffer, value.dtype, layout));
    prepared->leaves.push_back(data);
    operand_strides.push_back(layout.strides);
    prepared->gathers.push_back(gather);
    prepared->gather_bounds.insert(prepared->gather_bounds.end(), {extent, axis_stride});
    static const std::int64_t zero[1] = {0};
    const void* fixed = nullptr;
    if (extent == 0) {
      fixed = zero;
    } else if (data->op() == ir::Op::constant) {
      prepared->held.push_back(value.buffer);
      fixed = value.buffer->data();
    }
    prepared->fixed_pointers.push_back(fixed);
    return spec.inputs.back();
  });
  for (const auto& out : step.outputs) spec.expression.outputs.push_back(expression.rebuild(out));

  // Placed outputs walk the domain through their own strides: axes merge only where they allow.
  const std::size_t leaf_count = operand_strides.size();
  for (const auto& place : prepared->places)
    operand_strides.push_back(place.into ? place.layout.strides : ir::contiguous_strides(prepared->domain));
  MergedAxes collapsed = merge_axes(prepared->domain, operand_strides);
  TJ_INTERNAL_CHECK(collapsed.shape.size() <= static_cast<std::size_t>(codegen::kMaxLoopRank))
      << "loop step: rank " << collapsed.shape.size() << " domain";
  const std::vector<ir::Strides> output_strides(collapsed.strides.begin() + static_cast<std::ptrdiff_t>(leaf_count),
                                                collapsed.strides.end());
  collapsed.strides.resize(leaf_count);
  if (std::any_of(output_strides.begin(), output_strides.end(),
                  [&](const ir::Strides& strides) { return strides != ir::contiguous_strides(collapsed.shape); })) {
    spec.form = codegen::LoopForm::placed;
    prepared->output_strides.assign(output_strides.size() * codegen::kMaxLoopRank, 0);
    for (std::size_t j = 0; j < output_strides.size(); ++j) {
      std::copy(output_strides[j].begin(), output_strides[j].end(),
                prepared->output_strides.begin() + static_cast<std::ptrdiff_t>(j * codegen::kMaxLoopRank));
      spec.output_access.push_back(output_strides[j].back() == 1 ? codegen::InnerAccess::contiguous
                                                                 : codegen::InnerAccess::strided);
    }
  }
  for (const auto& s : collapsed.strides) spec.access.push_back(classify_inner_stride(s.back()));
  prepared->collapsed_shape = collapsed.shape;
  for (const auto& leaf : prepared->leaves)
    prepared->input_itemsizes.push_back(static_cast<std::int64_t>(itemsize(leaf->dtype())));
  // An iota has no memory to stage: its kernel computes it wherever it is read.
  auto staged = [&](std::size_t k) {
    return read_transposed(collapsed.strides[k]) && !values.computed_by_readers(*prepared->leaves[k]);
  };
  bool any_staged = false;
  for (std::size_t k = 0; k < prepared->leaves.size(); ++k) any_staged = any_staged || staged(k);
  // A tile kernel has no flat positions to report an index out of range at.
  const bool gathers = std::any_of(prepared->gathers.begin(), prepared->gathers.end(), [](const auto& g) { return g != nullptr; });
  if (launch == LoopLaunch::whole_domain && any_staged && !gathers && prepared->places.empty()) {
    spec.form = codegen::LoopForm::tile;
    prepared->tile_rows = kTileRows;
    prepared->tile_columns = kTileColumns;
    for (std::size_t k = 0; k < prepared->leaves.size(); ++k) {
      ir::Strides& strides = collapsed.strides[k];
      if (!staged(k)) continue;
      prepared->staged.push_back({k, strides[0], strides[1]});
      strides = {kTileColumns, 1};
      spec.access[k] = codegen::InnerAccess::contiguous;
    }
  }
  prepared->input_strides.assign(prepared->leaves.size() * codegen::kMaxLoopRank, 0);
  for (std::size_t k = 0; k < prepared->leaves.size(); ++k)
    std::copy(collapsed.strides[k].begin(), collapsed.strides[k].end(),
              prepared->input_strides.begin() + static_cast<std::ptrdiff_t>(k * codegen::kMaxLoopRank));

  spec.streaming_stores = streams_outputs(step, prepared->domain) && may_stream(*prepared, spec);
  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel = codegen::compile_loop_kernel(jit(), spec, dump.folder.empty() ? nullptr : &request);
  return prepared;
}

void PreparedLoop::launch(const ir::Step& step, ValueTable& values, const StepDump&) const {
  const PreparedLoop& prepared = *this;
  std::int64_t numel = 1;
  for (auto e : prepared.domain) numel *= e;
  // The plan fixes every layout; only the buffers change from one run to the next. The pointer
  // lists live on the stack unless a step has hundreds of operands: a small eval's launch must not
  // cost four allocations.
  std::array<std::byte, 1024> arena_bytes;
  std::pmr::monotonic_buffer_resource arena(arena_bytes.data(), arena_bytes.size());
  std::pmr::vector<const void*> input_pointers(&arena);
  input_pointers.reserve(prepared.leaves.size());
  for (std::size_t k = 0; k < prepared.leaves.size(); ++k) {
    const void* fixed = prepared.fixed_pointers[k];
    input_pointers.push_back(fixed ? fixed : values.first_element(prepared.leaves[k]));
  }
  std::pmr::vector<void*> output_pointers(&arena);
  std::pmr::vector<std::int64_t> output_itemsizes(&arena);
  output_pointers.reserve(step.outputs.size());
  output_itemsizes.reserve(step.outputs.size());
  for (std::size_t j = 0; j < step.outputs.size(); ++j) {
    const ir::NodePtr& out = step.outputs[j];
    output_itemsizes.push_back(static_cast<std::int64_t>(itemsize(out->dtype())));
    if (!prepared.places.empty() && prepared.places[j].into) {
      ir::Value placed{values.at(prepared.places[j].into).buffer, out->dtype(), prepared.places[j].layout};
      output_pointers.push_back(const_cast<char*>(element_pointer(placed)));
      values.put(out.get(), std::move(placed));
      continue;
    }
    auto buffer = values.output_buffer(out.get(), static_cast<std::size_t>(numel) * itemsize(out->dtype()));
    output_pointers.push_back(buffer->data());
    values.put(out.get(), ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(prepared.domain)});
  }
  if (numel == 0) return;
  if (prepared.tile_rows > 0) {
    launch_tiles(prepared, input_pointers, output_pointers, output_itemsizes);
    return;
  }

  codegen::LoopArgs args{};
  args.rank = static_cast<std::int64_t>(prepared.collapsed_shape.size());
  std::copy(prepared.collapsed_shape.begin(), prepared.collapsed_shape.end(), args.shape);
  args.inputs = input_pointers.data();
  args.input_strides = prepared.input_strides.data();
  args.outputs = output_pointers.data();
  args.output_strides = prepared.output_strides.empty() ? nullptr : prepared.output_strides.data();
  args.gather_bounds = prepared.gather_bounds.data();
  auto* function = prepared.kernel->as<codegen::LoopFunction>();

  const std::int64_t tasks = std::min<std::int64_t>(pool_threads(), numel / kMinElementsPerTask);
  // Each call reports the first index out of range it meets in a record of its own.
  std::pmr::vector<codegen::IndexFault> faults(static_cast<std::size_t>(std::max<std::int64_t>(tasks, 1)), &arena);
  if (tasks <= 1) {
    args.fault = faults.data();
    function(&args, 0, numel);
    throw_first_index_fault(prepared.gathers, faults);
    return;
  }
  // Cut points on multiples of 64 elements, so each piece's vectors start on a cache line.
  parallel_for(tasks, [&](std::int64_t t) {
    auto cut = [&](std::int64_t i) { return i == tasks ? numel : numel * i / tasks / 64 * 64; };
    codegen::LoopArgs task_args = args;
    task_args.fault = &faults[static_cast<std::size_t>(t)];
    function(&task_args, cut(t), cut(t + 1));
  });
  throw_first_index_fault(prepared.gathers, faults);
}

}  // namespace tensorjit::detail
