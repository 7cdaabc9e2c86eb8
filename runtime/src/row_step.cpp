// A row step that no row kernel takes (row_kernel_step.cpp: some operand's rows or columns do not
// merge into one axis each): its parts, loop and reduce kernels prepared as for steps of their
// own, run one after the other on a chunk of rows before the next chunk, so that a chunk read from
// memory once stays in cache across every phase (softmax: max, exp and sum, divide). Values over
// the rows that only the step reads live in a per-chunk scratch buffer; per-row values and values
// someone else reads are written to whole buffers. Chunks are spread over the pool; each part
// gives the same bits on any split of its rows, so the step does too. A part that sums over the
// rows (ir::reduces_rows) runs after the chunks as a reduce step of its own, over whole buffers
// of the values it reads.
#include "runtime/src/row_step.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/codegen/reduce_kernel.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/loop_step.hpp"
#include "runtime/src/reduce_step.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

// A chunk's rows hold about this many bytes of the widest value over the rows: in L2 with room for
// the scratch values and the output.
constexpr std::int64_t kChunkBytes = 128 << 10;

struct PreparedPart {
  std::shared_ptr<const PreparedLoop> loop;
  std::shared_ptr<const PreparedReduce> reduce;
};

}  // namespace

void run_row_step(const ir::Step& step, ValueTable& values, const StepDump& dump) {
  // The rows: the leading axes of the first part's reduction input; the columns: the rest.
  const ir::NodePtr reduction_node = ir::row_step_reduction(step);
  TJ_INTERNAL_CHECK(reduction_node) << "row step: no reduce part";
  const ir::NodePtr* reduction = &reduction_node;
  const ir::Shape& domain = (*reduction)->input(0)->shape();
  const int first_axis = (*reduction)->attr<ir::ReduceAttr>().axes.front();
  std::int64_t rows = 1, columns = 1;
  for (int d = 0; d < static_cast<int>(domain.size()); ++d)
    (d < first_axis ? rows : columns) *= domain[d];

  // The parts run chunk by chunk, and those summing over the rows, which run after them.
  std::vector<const ir::Step*> chunked, over_rows;
  for (const auto& part : step.parts) (ir::reduces_rows(part) ? over_rows : chunked).push_back(&part);
  // Values over the rows that only the chunked parts read: scratch, given a placeholder without a
  // buffer while preparing (only their layout matters there). The others get whole buffers.
  std::unordered_set<const ir::Node*> written;
  for (const auto& out : step.outputs) written.insert(out.get());
  for (const ir::Step* part : over_rows)
    for (const auto& node : part->nodes)
      for (const auto& in : node->inputs()) written.insert(ir::view_base(in.get()));
  std::vector<ir::NodePtr> scratch;
  std::size_t widest = 1;
  for (const ir::Step* part : chunked)
    for (const auto& out : part->outputs) {
      if (out->shape() == domain) widest = std::max(widest, itemsize(out->dtype()));
      if (written.count(out.get())) continue;
      scratch.push_back(out);
      values.put(out.get(), ir::Value{nullptr, out->dtype(), ir::Layout::contiguous(domain)});
    }
  std::unordered_map<const ir::Node*, std::size_t> scratch_index;
  for (std::size_t i = 0; i < scratch.size(); ++i) scratch_index[scratch[i].get()] = i;

  // Whole buffers for what the chunked parts write and someone else reads (later parts are
  // prepared reading them).
  std::unordered_map<const ir::Node*, void*> whole;
  for (const ir::Step* part : chunked)
    for (const auto& out : part->outputs) {
      if (!written.count(out.get())) continue;
      auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(out->numel()) * itemsize(out->dtype()));
      whole[out.get()] = buffer->data();
      values.put(out.get(), ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(out->shape())});
    }

  std::vector<PreparedPart> prepared;
  for (std::size_t p = 0; p < chunked.size(); ++p) {
    StepDump part_dump = dump;
    if (!dump.folder.empty()) part_dump.kernel_name += "-part" + std::to_string(p);
    PreparedPart part;
    // The loop parts run on each chunk's range of elements, so in the flat form even when an
    // input is read transposed: their inputs' strides as they are, no staged tiles.
    if (chunked[p]->kind == ir::Step::Kind::loop)
      part.loop = prepare_loop_step(*chunked[p], values, part_dump, LoopLaunch::element_ranges);
    else
      part.reduce = prepare_reduce_step(*chunked[p], values, part_dump);
    prepared.push_back(std::move(part));
  }
  for (const auto& node : scratch) values.drop(node.get());
  auto sum_over_rows = [&] {
    for (std::size_t p = 0; p < over_rows.size(); ++p) {
      StepDump part_dump = dump;
      if (!dump.folder.empty()) part_dump.kernel_name += "-over-rows" + std::to_string(p);
      prepare_reduce_step(*over_rows[p], values, part_dump)->launch(*over_rows[p], values, part_dump);
    }
  };

  if (rows == 0) {
    sum_over_rows();
    return;
  }

  // Each part's pointers with scratch values marked; `base` of a scratch value is the chunk's
  // buffer shifted back by the chunk's first element, since kernels index values by their position
  // in the whole domain.
  struct Operand {
    const char* pointer = nullptr;
    int scratch = -1;
    std::size_t size = 0;
  };
  auto operand = [&](const ir::NodePtr& node, bool read) {
    Operand o;
    o.size = itemsize(node->dtype());
    if (auto it = scratch_index.find(node.get()); it != scratch_index.end()) {
      o.scratch = static_cast<int>(it->second);
    } else {
      o.pointer = read ? element_pointer(values.resolve(node))
                       : static_cast<const char*>(whole.at(node.get()));
    }
    return o;
  };
  std::vector<std::vector<Operand>> inputs(chunked.size()), outputs(chunked.size());
  for (std::size_t p = 0; p < chunked.size(); ++p) {
    const auto& leaves = prepared[p].loop ? prepared[p].loop->leaves : prepared[p].reduce->leaves;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      // A gathered leaf that is no value of the plan (loop_step.hpp's fixed_pointers).
      const void* fixed = prepared[p].loop ? prepared[p].loop->fixed_pointers[k] : nullptr;
      inputs[p].push_back(fixed ? Operand{static_cast<const char*>(fixed), -1, 0} : operand(leaves[k], true));
    }
    for (const auto& out : chunked[p]->outputs) outputs[p].push_back(operand(out, false));
  }

  const std::int64_t rows_per_chunk = std::max<std::int64_t>(
      1, kChunkBytes / std::max<std::int64_t>(1, columns * static_cast<std::int64_t>(widest)));
  const std::int64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  const std::int64_t tasks = std::min<std::int64_t>(pool_threads(), chunks);
  // One record of the first index out of range per task and part: a part's calls meet its
  // elements in order, but a later part may meet an earlier row of the chunk.
  std::vector<codegen::IndexFault> faults(static_cast<std::size_t>(tasks) * chunked.size());

  auto run_chunks = [&](std::int64_t task) {
    std::vector<std::shared_ptr<ir::Buffer>> buffers;
    for (const auto& node : scratch)
      buffers.push_back(ir::Buffer::allocate(static_cast<std::size_t>(rows_per_chunk * columns) *
                                             itemsize(node->dtype())));
    std::vector<const void*> input_pointers;
    std::vector<void*> output_pointers;
    for (std::int64_t chunk = chunks * task / tasks; chunk < chunks * (task + 1) / tasks; ++chunk) {
      const std::int64_t first = chunk * rows_per_chunk,
                         last = std::min(rows, first + rows_per_chunk);
      auto locate = [&](const Operand& o) {
        if (o.scratch < 0) return o.pointer;
        // Element i of the domain is at scratch + (i - first * columns): the kernels add i back.
        return static_cast<const char*>(buffers[static_cast<std::size_t>(o.scratch)]->data()) -
               first * columns * static_cast<std::int64_t>(o.size);
      };
      for (std::size_t p = 0; p < chunked.size(); ++p) {
        input_pointers.clear();
        output_pointers.clear();
        for (const auto& o : inputs[p]) input_pointers.push_back(locate(o));
        for (const auto& o : outputs[p]) output_pointers.push_back(const_cast<char*>(locate(o)));
        if (prepared[p].loop) {
          const PreparedLoop& loop = *prepared[p].loop;
          codegen::LoopArgs args{};
          args.rank = static_cast<std::int64_t>(loop.collapsed_shape.size());
          std::copy(loop.collapsed_shape.begin(), loop.collapsed_shape.end(), args.shape);
          args.inputs = input_pointers.data();
          args.input_strides = loop.input_strides.data();
          args.outputs = output_pointers.data();
          args.gather_bounds = loop.gather_bounds.data();
          args.fault = &faults[static_cast<std::size_t>(task) * chunked.size() + p];
          loop.kernel->as<codegen::LoopFunction>()(&args, first * columns, last * columns);
        } else {
          const PreparedReduce& reduce = *prepared[p].reduce;
          codegen::ReduceArgs args = reduce.arguments;
          args.inputs = input_pointers.data();
          args.input_strides = reduce.input_strides.data();
          args.outputs = output_pointers.data();
          reduce.kernel->as<codegen::ReduceFunction>()(&args, first, last);
        }
      }
    }
  };
  if (tasks <= 1)
    run_chunks(0);
  else
    parallel_for(tasks, run_chunks);
  // Each part's faults name its own inputs.
  const codegen::IndexFault* earliest = nullptr;
  std::size_t earliest_part = 0;
  for (std::size_t f = 0; f < faults.size(); ++f)
    if (faults[f].found && (!earliest || faults[f].position < earliest->position)) {
      earliest = &faults[f];
      earliest_part = f % chunked.size();
    }
  if (earliest) throw_first_index_fault(prepared[earliest_part].loop->gathers, {earliest, 1});
  sum_over_rows();
}

}  // namespace tensorjit::detail
