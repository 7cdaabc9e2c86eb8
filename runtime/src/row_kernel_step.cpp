// A row step (fuse_rows.hpp) as one JIT'd row kernel (codegen/row_kernel.hpp): every part of the
// step becomes a phase of one function that finishes a row before it starts the next, so the row
// stays in L1 across the phases. The rows (the leading axes of the domain) and the columns (the
// reduced trailing axes) must each merge into one axis for every operand; when they do not, the
// step runs part by part on chunks of rows instead (row_step.cpp). Rows are split across the pool;
// each row's bits do not depend on the split.
#include "runtime/src/row_kernel_step.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <unordered_map>

#include <tensorjit/codegen/row_kernel.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>

#include "runtime/src/column_lanes.hpp"
#include "runtime/src/config.hpp"
#include "runtime/src/jit_instance.hpp"
#include "runtime/src/loop_step.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/row_step.hpp"
#include "runtime/src/step_expression.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

using codegen::RowValue;
using codegen::RowValueKind;

// Builds the kernel's spec from the step's parts: each value crossing a part, and each leaf read
// from memory, becomes a RowValue.
class RowSpecBuilder {
 public:
  RowSpecBuilder(const ir::Step& step, const ValueTable& values, PreparedRow& prepared)
      : step_(step), values_(values), prepared_(prepared) {}

  // False when an operand's rows or columns do not merge into one axis.
  bool build() {
    const ir::NodePtr reduction_node = ir::row_step_reduction(step_);
    TJ_INTERNAL_CHECK(reduction_node) << "row step: no reduce part";
    const ir::NodePtr* reduction = &reduction_node;
    domain_ = (*reduction)->input(0)->shape();
    first_axis_ = (*reduction)->attr<ir::ReduceAttr>().axes.front();
    prepared_.rows = 1;
    prepared_.columns = 1;
    for (int d = 0; d < static_cast<int>(domain_.size()); ++d)
      (d < first_axis_ ? prepared_.rows : prepared_.columns) *= domain_[d];
    prepared_.inner_rows = first_axis_ == 0 ? 1 : std::max<std::int64_t>(domain_[static_cast<std::size_t>(first_axis_ - 1)], 1);
    for (std::size_t j = 0; j < step_.outputs.size(); ++j)
      output_index_[step_.outputs[j].get()] = static_cast<int>(j);
    for (const ir::Step& part : step_.parts)
      if (!(part.kind == ir::Step::Kind::reduce ? add_reduce(part) : add_loop(part))) return false;
    place_scratch_rows(false);
    spec.streaming_stores = streams_outputs() && row_bytes_in_l1() <= kRowBytesInL1;
    if (!spec.streaming_stores) place_scratch_rows(true);
    return true;
  }

  codegen::RowKernelSpec spec;

 private:
  // One expression's leaves: a leaf per value read, in order.
  struct Leaves {
    std::vector<ir::NodePtr> inputs;
    std::vector<int> reads;
    std::unordered_map<int, ir::NodePtr> by_value;
  };

  bool add_loop(const ir::Step& part) {
    codegen::RowPhase phase;
    Leaves leaves;
    ExpressionRebuilder expression(part.nodes, leaf_for(leaves, false));
    expression.on_gather(gathered_for(leaves));
    if (!rebuild_all(expression, part.outputs, phase.expression.outputs)) return false;
    phase.inputs = leaves.inputs;
    phase.reads = leaves.reads;
    add_writes(part.outputs, RowValueKind::column_value, phase.writes);
    spec.phases.push_back(std::move(phase));
    return true;
  }

  bool add_reduce(const ir::Step& part) {
    const auto reduction_at = std::find_if(part.nodes.begin(), part.nodes.end(),
                                           [](const ir::NodePtr& n) { return ir::is_reduce(n->op()); });
    TJ_INTERNAL_CHECK(reduction_at != part.nodes.end()) << "row step: a reduce part has no reduction";
    const ir::NodePtr& reduction = *reduction_at;
    codegen::RowPhase phase;
    phase.kind = ir::reduces_rows(part) ? codegen::RowPhaseKind::column_reduce : codegen::RowPhaseKind::reduce;
    phase.op = reduction->op();
    Leaves producer;
    ExpressionRebuilder producer_expression(part.nodes.begin(), reduction_at, leaf_for(producer, false));
    producer_expression.on_gather(gathered_for(producer));
    ir::NodePtr produced = producer_expression.rebuild(reduction->input(0));
    if (!produced) return false;
    phase.expression.outputs.push_back(produced);
    phase.inputs = producer.inputs;
    phase.reads = producer.reads;
    if (phase.kind == codegen::RowPhaseKind::column_reduce) {
      // A sum over the rows (fuse_rows.hpp: no consumer): its lanes, summed when the rows are done.
      prepared_.column_sums.push_back({output_index_.at(reduction.get()), reduction->dtype()});
      spec.phases.push_back(std::move(phase));
      return true;
    }

    Leaves consumer;
    ExpressionRebuilder consumer_expression(reduction_at + 1, part.nodes.end(), leaf_for(consumer, true));
    phase.result = ir::make_input(nullptr, reduction->dtype(), ir::Layout::contiguous(reduction->shape()));
    consumer_expression.alias(reduction.get(), phase.result);
    if (!rebuild_all(consumer_expression, part.outputs, phase.consumer.outputs)) return false;
    phase.consumer_inputs = consumer.inputs;
    phase.consumer_reads = consumer.reads;
    add_writes(part.outputs, RowValueKind::row_value, phase.consumer_writes);
    spec.phases.push_back(std::move(phase));
    return true;
  }

  // Streaming stores (codegen::RowKernelSpec::streaming_stores) when the outputs take
  // TENSORJIT_STREAMING_MB or more (as loop steps, runtime/src/loop_step.cpp) and every output
  // row of column values is a whole number of 64-byte lines, so that each row starts aligned
  // (the buffers are 64-byte aligned). Softmax then moves its input and output once each: its
  // output rows are no longer written twice (below), and never read before they are written.
  bool streams_outputs() const {
    std::size_t bytes = 0;
    for (const auto& out : step_.outputs) bytes += static_cast<std::size_t>(out->numel()) * itemsize(out->dtype());
    if (!config().streams(bytes)) return false;
    for (const RowValue& value : spec.values)
      if (value.kind == RowValueKind::column_value && value.output >= 0 &&
          prepared_.columns * static_cast<std::int64_t>(itemsize(value.dtype)) % 64 != 0)
        return false;
    return true;
  }

  // What one row keeps in L1 across its phases: its column inputs, scratch rows and lane rows (an
  // output row written with streaming stores bypasses the cache). Streaming gives each scratch value a row
  // of its own (below), and past about two thirds of the 48 KiB L1 the rows spill to L2: f64
  // softmax of 4096 columns (64 KiB) measured 4 % slower with streaming stores, f32 (32 KiB)
  // 10 % faster (docs/reductions.md).
  static constexpr std::int64_t kRowBytesInL1 = std::int64_t{32} << 10;
  std::int64_t row_bytes_in_l1() const {
    std::int64_t bytes = 0;
    for (const RowValue& value : spec.values)
      if (value.kind == RowValueKind::column_input && !value.same_every_row)
        bytes += static_cast<std::int64_t>(itemsize(value.dtype));
    for (DType dtype : prepared_.scratch) bytes += static_cast<std::int64_t>(itemsize(dtype));
    for (const auto& sum : prepared_.column_sums) bytes += static_cast<std::int64_t>(itemsize(sum.dtype));
    return bytes * prepared_.columns;
  }

  // Gives each column value without an output a scratch row. With `share`, a scratch row whose
  // last reader is the loop phase that writes an output row of its dtype lives in that output row
  // instead: the phase reads each column before it writes it, so the row holds the scratch value
  // until then (softmax: exp(x - max) in the output row, divided in place), and a row takes one
  // row less of L1. Not with streaming stores: the output row would be read from memory for its
  // first write.
  void place_scratch_rows(bool share) {
    std::vector<int> last_reader(spec.values.size(), -1);
    for (std::size_t p = 0; p < spec.phases.size(); ++p) {
      for (int v : spec.phases[p].reads) last_reader[static_cast<std::size_t>(v)] = static_cast<int>(p);
      for (int v : spec.phases[p].consumer_reads)
        last_reader[static_cast<std::size_t>(v)] = static_cast<int>(p);
    }
    std::vector<bool> taken(spec.values.size(), false);
    prepared_.scratch.clear();
    for (std::size_t v = 0; v < spec.values.size(); ++v) {
      RowValue& value = spec.values[v];
      if (value.kind != RowValueKind::column_value || value.scratch < 0) continue;
      value.scratch = -1;
      const int reader = last_reader[v];
      if (share && reader >= 0 && spec.phases[static_cast<std::size_t>(reader)].kind == codegen::RowPhaseKind::loop) {
        for (int o : spec.phases[static_cast<std::size_t>(reader)].writes) {
          const RowValue& output = spec.values[static_cast<std::size_t>(o)];
          if (output.output < 0 || output.dtype != value.dtype || taken[static_cast<std::size_t>(o)])
            continue;
          taken[static_cast<std::size_t>(o)] = true;
          value.output = output.output;
          break;
        }
      }
      if (value.output >= 0) continue;
      value.scratch = static_cast<int>(prepared_.scratch.size());
      prepared_.scratch.push_back(value.dtype);
    }
  }

  // Each of `outputs` rebuilt over leaves, appended to `into`; false when a leaf does not fit.
  static bool rebuild_all(ExpressionRebuilder& expression, const std::vector<ir::NodePtr>& outputs,
                          std::vector<ir::NodePtr>& into) {
    for (const auto& out : outputs) {
      into.push_back(expression.rebuild(out));
      if (!into.back()) return false;
    }
    return true;
  }

  // The values a phase writes, as `kind`, appended to `writes`: each into its step output, or, a
  // column value only the step reads, into a scratch row (per-row values stay in registers).
  void add_writes(const std::vector<ir::NodePtr>& outputs, RowValueKind kind, std::vector<int>& writes) {
    for (const auto& out : outputs) {
      RowValue value;
      value.kind = kind;
      value.dtype = out->dtype();
      if (auto found = output_index_.find(out.get()); found != output_index_.end()) {
        value.output = found->second;
      } else if (kind == RowValueKind::column_value) {
        value.scratch = static_cast<int>(prepared_.scratch.size());
        prepared_.scratch.push_back(out->dtype());
      }
      writes.push_back(add_value(value));
      computed_[out.get()] = writes.back();
    }
  }

  int add_value(const RowValue& value) {
    spec.values.push_back(value);
    return static_cast<int>(spec.values.size()) - 1;
  }

  // The leaf a read becomes: one per value read; null when a leaf's layout does not fit the
  // kernel. `per_row`: the expression runs once per row (a consumer), its memory leaves live on
  // the reduction's result.
  ExpressionRebuilder::LeafFor leaf_for(Leaves& leaves, bool per_row) {
    return [this, &leaves, per_row](const ir::NodePtr& read) -> ir::NodePtr {
      const int v = value_of(read, per_row);
      if (v < 0) return nullptr;
      auto& leaf = leaves.by_value[v];
      if (!leaf) {
        leaf = ir::make_input(nullptr, read->dtype(), ir::Layout::contiguous(read->shape()));
        leaves.inputs.push_back(leaf);
        leaves.reads.push_back(v);
      }
      return leaf;
    };
  }

  // The leaf that a gather's operand 0 becomes (codegen/row_kernel.hpp, "Gathers"): a gathered
  // column input of its own over the domain, the table's strides with the indexed axis's at 0,
  // whose axis extent and stride go to RowArgs::gather_bounds; null when its rows or columns do
  // not merge. An axis of no elements has nothing to read: every index is out of range, and the
  // lanes read one zero element. A literal constant is read from a one-element buffer held by the
  // prepared step.
  ExpressionRebuilder::GatheredFor gathered_for(Leaves& leaves) {
    return [this, &leaves](const ir::NodePtr& gather, const ir::NodePtr& data) -> ir::NodePtr {
      if (values_.computed_by_readers(*data)) return nullptr;
      const ir::Value value = values_.resolve(data);
      const auto axis = static_cast<std::size_t>(gather->attr<ir::IndexAttr>().axis);
      const std::int64_t extent = value.layout.shape[axis], axis_stride = value.layout.strides[axis];
      ir::Strides strides = value.layout.strides;
      strides[axis] = 0;
      if (extent == 0) strides.assign(strides.size(), 0);
      const auto split = static_cast<std::ptrdiff_t>(first_axis_);
      const ir::Shape& shape = gather->shape();
      const auto rows = row_strides(shape, strides);
      const MergedAxes columns = merge_axes(ir::Shape(shape.begin() + split, shape.end()),
                                            {ir::Strides(strides.begin() + split, strides.end())});
      if (!rows || columns.shape.size() != 1) return nullptr;
      RowValue entry;
      entry.kind = RowValueKind::column_input;
      entry.dtype = value.dtype;
      entry.access = classify_inner_stride(columns.strides[0][0]);
      entry.gathered = true;
      entry.input = static_cast<int>(prepared_.leaves.size());
      prepared_.leaves.push_back(data);
      prepared_.input_strides.insert(prepared_.input_strides.end(), {rows->first, rows->second, columns.strides[0][0]});
      prepared_.gathers.resize(prepared_.leaves.size());
      prepared_.gathers.back() = gather;
      prepared_.gather_bounds.resize(2 * prepared_.leaves.size(), 0);
      prepared_.gather_bounds[2 * static_cast<std::size_t>(entry.input)] = extent;
      prepared_.gather_bounds[2 * static_cast<std::size_t>(entry.input) + 1] = axis_stride;
      static const std::int64_t zero[1] = {0};
      prepared_.fixed_pointers.resize(prepared_.leaves.size(), nullptr);
      if (extent == 0) {
        prepared_.fixed_pointers.back() = zero;
      } else if (data->op() == ir::Op::constant) {
        prepared_.held.push_back(value.buffer);
        prepared_.fixed_pointers.back() = value.buffer->data();
      }
      const int v = add_value(entry);
      ir::NodePtr leaf = ir::make_input(nullptr, data->dtype(), ir::Layout::contiguous(shape));
      leaves.inputs.push_back(leaf);
      leaves.reads.push_back(v);
      return leaf;
    };
  }

  // A leaf's strides over the domain's rows, [rows / inner_rows, inner_rows] (codegen/row_kernel.hpp):
  // the row axes before the last merged into one (nullopt when they do not merge), and the last.
  std::optional<std::pair<std::int64_t, std::int64_t>> row_strides(const ir::Shape& shape,
                                                                   const ir::Strides& strides) const {
    if (first_axis_ == 0) return std::pair<std::int64_t, std::int64_t>{0, 0};
    const auto last = static_cast<std::ptrdiff_t>(first_axis_ - 1);
    const MergedAxes outer = merge_axes(ir::Shape(shape.begin(), shape.begin() + last),
                                        {ir::Strides(strides.begin(), strides.begin() + last)});
    if (outer.shape.size() != 1) return std::nullopt;
    return std::pair<std::int64_t, std::int64_t>{outer.strides[0][0], strides[static_cast<std::size_t>(last)]};
  }

  // The value a leaf reads: one the step computed, or memory (-1 when its layout does not fit).
  int value_of(const ir::NodePtr& read, bool per_row) {
    const ir::Node* base = ir::view_base(read.get());
    if (auto found = computed_.find(base); found != computed_.end()) {
      const RowValue& value = spec.values[static_cast<std::size_t>(found->second)];
      // fuse_rows lets a later part read a value over the rows directly, a per-row value through
      // views that give each row its own value; a consumer reads per-row values only.
      if (value.kind == RowValueKind::column_value && (per_row || base != read.get())) return -1;
      return found->second;
    }
    auto& memory = memory_[per_row ? 1 : 0];
    if (auto found = memory.find(read.get()); found != memory.end()) return found->second;
    // The row kernel reads memory only: a step reading an iota that its kernels compute runs
    // part by part (row_step.cpp), whose loop and reduce kernels compute it.
    if (values_.computed_by_readers(*read)) return -1;
    const ir::Value value = values_.resolve(read);
    const ir::Shape& shape = value.layout.shape;
    const ir::Strides& strides = value.layout.strides;
    if (shape.size() < static_cast<std::size_t>(first_axis_)) return -1;
    const auto split = static_cast<std::ptrdiff_t>(first_axis_);
    const auto rows = row_strides(shape, strides);
    std::int64_t column_stride = 0;
    if (!per_row) {
      const MergedAxes columns = merge_axes(ir::Shape(shape.begin() + split, shape.end()),
                                            {ir::Strides(strides.begin() + split, strides.end())});
      if (columns.shape.size() != 1) return -1;
      column_stride = columns.strides[0][0];
    }
    if (!rows) return -1;
    RowValue entry;
    entry.kind = per_row ? RowValueKind::row_input : RowValueKind::column_input;
    entry.dtype = value.dtype;
    entry.access = classify_inner_stride(column_stride);
    entry.same_every_row = !per_row && rows->first == 0 && rows->second == 0;
    entry.input = static_cast<int>(prepared_.leaves.size());
    prepared_.leaves.push_back(read);
    prepared_.input_strides.insert(prepared_.input_strides.end(), {rows->first, rows->second, column_stride});
    const int v = add_value(entry);
    memory[read.get()] = v;
    return v;
  }

  const ir::Step& step_;
  const ValueTable& values_;
  PreparedRow& prepared_;
  ir::Shape domain_;
  int first_axis_ = 0;
  std::unordered_map<const ir::Node*, int> output_index_;
  std::unordered_map<const ir::Node*, int> computed_;  // values the step computed, by node
  // Memory leaves by the node read: read per column, and per row (a consumer's).
  std::unordered_map<const ir::Node*, int> memory_[2];
};

}  // namespace

std::shared_ptr<const PreparedRow> prepare_row_kernel_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump) {
  auto prepared = std::make_shared<PreparedRow>();
  RowSpecBuilder builder(step, values, *prepared);
  if (!builder.build()) return std::make_shared<PreparedRow>();  // no kernel: part by part
  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel =
      codegen::compile_row_kernel(jit(), builder.spec, dump.folder.empty() ? nullptr : &request);
  return prepared;
}

void PreparedRow::launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const {
  if (!kernel) {
    run_row_step(step, values, dump);
    return;
  }
  const PreparedRow& prepared = *this;
  // Every element of every output is written by the kernel (per-row values once per row, whole
  // rows in their phase), so a recycled buffer needs no clearing.
  std::vector<void*> output_pointers;
  for (const auto& out : step.outputs) {
    auto buffer =
        ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(out->numel()) * itemsize(out->dtype()));
    output_pointers.push_back(buffer->data());
    values.put(out.get(), ir::Value{std::move(buffer), out->dtype(), ir::Layout::contiguous(out->shape())});
  }
  const std::int64_t rows = prepared.rows, columns = prepared.columns;
  if (rows == 0) {
    for (const auto& sum : prepared.column_sums)
      ColumnLanes(sum.dtype, 0, columns).sum_into(output_pointers[static_cast<std::size_t>(sum.output)]);
    return;
  }
  // The plan fixes every layout; only the buffers change from one run to the next.
  std::vector<const void*> input_pointers;
  for (std::size_t k = 0; k < prepared.leaves.size(); ++k) {
    const void* fixed = k < prepared.fixed_pointers.size() ? prepared.fixed_pointers[k] : nullptr;
    input_pointers.push_back(fixed ? fixed : element_pointer(values.resolve(prepared.leaves[k])));
  }
  std::vector<std::int64_t> gather_bounds = prepared.gather_bounds;
  gather_bounds.resize(2 * prepared.leaves.size(), 0);
  auto* function = prepared.kernel->as<codegen::RowFunction>();
  // Sums over the rows (column_reduce phases) keep each lane's rows in order on one thread: a call
  // walks one lane of one block, row_step rows apart, and the calls are split over the pool.
  // With sums of both f32 (64 lanes) and f64 (32), a call walks 32 rows apart: rows l and l + 32
  // of the f32 sums' lanes are then both that call's.
  std::vector<ColumnLanes> lanes;
  std::vector<void*> lane_pointers;
  for (const auto& sum : prepared.column_sums) {
    lanes.emplace_back(sum.dtype, rows, columns);
    lane_pointers.push_back(lanes.back().data());
  }
  std::int64_t row_step = 1;
  if (!lanes.empty())
    row_step = std::min_element(lanes.begin(), lanes.end(), [](const ColumnLanes& a, const ColumnLanes& b) {
                 return a.lane_count() < b.lane_count();
               })->lane_count();
  const std::int64_t blocks = (rows + ir::kReductionBlock - 1) / ir::kReductionBlock;
  const std::int64_t units = lanes.empty() ? rows : blocks * row_step;
  const std::int64_t work = rows * std::max<std::int64_t>(columns, 1);
  const std::int64_t tasks = std::min({std::int64_t{pool_threads()}, units, work / kMinElementsPerTask});
  // Each task reports the first index out of range it meets in a record of its own.
  std::vector<codegen::IndexFault> faults(static_cast<std::size_t>(std::max<std::int64_t>(tasks, 1)));
  auto run_task = [&](std::int64_t task, std::int64_t task_count) {
    std::vector<std::shared_ptr<ir::Buffer>> scratch;
    std::vector<void*> scratch_pointers;
    for (DType dtype : prepared.scratch) {
      scratch.push_back(ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(columns) * itemsize(dtype)));
      scratch_pointers.push_back(scratch.back()->data());
    }
    codegen::RowArgs args{};
    args.columns = columns;
    args.inputs = input_pointers.data();
    args.input_strides = prepared.input_strides.data();
    args.inner_rows = prepared.inner_rows;
    args.outputs = output_pointers.data();
    args.scratch = scratch_pointers.data();
    args.gather_bounds = gather_bounds.data();
    args.fault = &faults[static_cast<std::size_t>(task)];
    args.row_step = row_step;
    args.column_lanes = lane_pointers.data();
    const std::int64_t first = units * task / task_count, last = units * (task + 1) / task_count;
    if (lanes.empty()) {
      function(&args, first, last);
      return;
    }
    for (std::int64_t unit = first; unit < last; ++unit) {
      const std::int64_t block = unit / row_step;
      const std::int64_t begin = block * ir::kReductionBlock + unit % row_step;
      function(&args, begin, std::min(rows, (block + 1) * ir::kReductionBlock));
    }
  };
  if (tasks <= 1)
    run_task(0, 1);
  else
    parallel_for(tasks, [&](std::int64_t t) { run_task(t, tasks); });
  for (std::size_t k = 0; k < lanes.size(); ++k)
    lanes[k].sum_into(output_pointers[static_cast<std::size_t>(prepared.column_sums[k].output)]);
  throw_first_index_fault(prepared.gathers, faults);
}

}  // namespace tensorjit::detail
