// The LLVM IR of a row kernel (row_kernel.hpp): one function that, for each row of [begin, end),
// runs every phase over the row before the next row, so that the row stays in L1 between phases.
//
// Shape of the code, per row r:
//   row setup   each value's row pointer (inputs: base + r * row stride; column values: their
//               output row or the scratch row), each row input's scalar;
//   loop phase  `unroll` vectors of `lanes` lanes per iteration (choose_loop_shape, as loop
//               kernels), single vectors, then the last columns as one vector masked to the row
//               (a scalar tail with the same per-lane instructions where a lane past the row
//               cannot be read: a strided column, a gather with an index per column);
//   reduce      for each block of kReductionBlock columns: V accumulator lanes in registers across
//               whole groups of V columns, the block's last columns into their lanes in memory
//               (native vectors, the last one masked to the row), the fixed tree, the partial
//               combined into the total left to right; then the consumer on the result, one
//               element per row;
//   column_reduce  as a loop phase, each column's value added into the row's lane of the
//               phase's lanes in memory (the same lane row for every row of a call, so in L1).
// With a column_reduce phase the rows run RowArgs::row_step apart.
// The reduction order is that of lower_reduce.cpp: element i of a block goes to lane i mod V
// (a row starts at column 0 and a block on a multiple of V, so whole groups are lanes 0..V-1).
#include "codegen/src/lower/lower_row.hpp"

#include <algorithm>
#include <cstddef>

#include <llvm/IR/IRBuilder.h>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>

#include "codegen/src/lower/counted_loop.hpp"
#include "codegen/src/lower/emit_elementwise.hpp"
#include "codegen/src/lower/index_check.hpp"
#include "codegen/src/lower/lower_loop.hpp"
#include "codegen/src/lower/kernel_lowering.hpp"
#include "codegen/src/lower/reduce_values.hpp"
#include "codegen/src/lower/streaming_store.hpp"

namespace tensorjit::codegen {
namespace {

class RowLowering : KernelLowering {
 public:
  RowLowering(llvm::Module& module, const RowPlan& plan, int vector_bits)
      : KernelLowering(module), plan_(plan), vector_bits_(vector_bits) {}

  void build(const std::string& symbol);

 private:
  // Per value, what the current row needs.
  struct Current {
    llvm::Value* base = nullptr;           // inputs and outputs: the whole buffer
    llvm::Value* outer_row_stride = nullptr;  // inputs: per outer row
    llvm::Value* row_stride = nullptr;        // inputs: per inner row
    llvm::Value* next_row = nullptr;          // column inputs: element 0 of the next row
    llvm::Value* column_stride = nullptr;  // strided column inputs
    llvm::Value* row = nullptr;            // column-level values: element 0 of the current row
    llvm::Value* scalar = nullptr;         // row-level values and broadcast inputs, in registers
    llvm::Value* extent = nullptr;         // gathered inputs: the indexed axis's extent
    llvm::Value* axis_stride = nullptr;    // and stride (RowArgs::gather_bounds)
  };

  llvm::Type* memory_type(DType dtype) { return memory_element_type(context_, dtype); }
  // A row's (outer, inner) position: row = outer * inner_rows + inner.
  struct RowPosition {
    llvm::Value* outer;
    llvm::Value* inner;
  };
  RowPosition row_position(llvm::Value* row) {
    llvm::Value* outer = builder_.CreateUDiv(row, inner_rows_, "outer_row");
    return {outer, builder_.CreateSub(row, builder_.CreateMul(outer, inner_rows_), "inner_row")};
  }
  // The position of the row after `at`, without a division.
  RowPosition next_position(const RowPosition& at) {
    llvm::Value* inner = builder_.CreateAdd(at.inner, index(1));
    llvm::Value* wraps = builder_.CreateICmpEQ(inner, inner_rows_);
    return {builder_.CreateSelect(wraps, builder_.CreateAdd(at.outer, index(1)), at.outer),
            builder_.CreateSelect(wraps, index(0), inner)};
  }
  // The offset of element 0 of the row at `at` in input `c`.
  llvm::Value* row_offset(const Current& c, const RowPosition& at) {
    return builder_.CreateAdd(builder_.CreateMul(at.outer, c.outer_row_stride), builder_.CreateMul(at.inner, c.row_stride));
  }
  llvm::Align align(DType dtype) { return llvm::Align(itemsize(dtype)); }
  llvm::Value* load_pointer(llvm::Value* array, std::size_t position, const char* name) {
    return builder_.CreateAlignedLoad(
        builder_.getPtrTy(), builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), array, position),
        llvm::Align(8), name);
  }
  llvm::AllocaInst* entry_alloca(llvm::Type* type, const char* name) {
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::AllocaInst* memory = entry.CreateAlloca(type, nullptr, name);
    memory->setAlignment(llvm::Align(64));
    return memory;
  }

  template <typename Body>
  void emit_counted_loop(const char* name, llvm::Value* start, llvm::Value* end, std::int64_t step,
                         Body body);
  void emit_prologue();
  void emit_row_setup(llvm::Value* row);
  // Value v on `lanes` columns from `column`.
  llvm::Value* load_value(int v, unsigned lanes, llvm::Value* column);
  // The expression's node values on `lanes` lanes; input leaf k read by load_input(k). A node
  // with a scalar in `hoisted` is that scalar, splat. With `only` given, the nodes it marks false
  // are not emitted (their values stay null).
  // `reads`: the phase's value per input leaf, for its gathers (row_kernel.hpp, "Gathers").
  template <typename LoadInput>
  std::vector<llvm::Value*> emit_expression(const LoopPlan& plan, unsigned lanes, LoadInput load_input,
                                            const std::vector<llvm::Value*>& hoisted = {},
                                            const std::vector<bool>& only = {},
                                            const std::vector<int>* reads = nullptr,
                                            llvm::Value* column = nullptr);
  // Which nodes of a phase's expression are the same across the row: constants, per-row values,
  // broadcast inputs (not gathered ones), and ops of those alone (never a gather).
  std::vector<bool> row_invariant_nodes(const LoopPlan& plan, const std::vector<int>& reads);
  // For each gather of the phase whose index is the same across the row: the index resolved and
  // checked once for the row, and the gathered row's first element (gathered_rows_); `hoisted`
  // holds the phase's row invariants (emit_row_invariants).
  void emit_gathered_rows(const LoopPlan& plan, const std::vector<int>& reads,
                          const std::vector<llvm::Value*>& hoisted);
  // Asks for the gathered row (of value `gathered`) that a later row reads at the index in value
  // `index_value`, when that index is read from memory.
  void emit_gathered_row_prefetch(std::size_t gathered, std::size_t index_value);
  // Gather node `n` on `lanes` columns from `column`, its index's values `indices`.
  llvm::Value* emit_gather(const LoopPlan& plan, const std::vector<int>& reads, std::size_t n, unsigned lanes,
                           llvm::Value* column, llvm::Value* indices);
  // The ops of a phase's expression whose operands are all the same across the row (per-row
  // values, broadcast inputs, constants), computed once per row as scalars; null elsewhere.
  std::vector<llvm::Value*> emit_row_invariants(const LoopPlan& plan, const std::vector<int>& reads);
  void emit_loop_phase(const RowPlanPhase& phase);
  void emit_column_reduce_phase(const RowPlanPhase& phase, std::size_t lanes_index);
  // The columns of the current row in a phase's loop shape: `at(lanes, column)` emits `lanes`
  // columns from `column`; the vector body asks for the phase's share of the next row.
  // With `masked_tail`, the columns past the last whole vector are one vector masked to the row
  // (tail_mask_ while it is emitted) instead of a scalar loop.
  template <typename At>
  void emit_column_walk(const LoopPlan& expression, const std::vector<int>& writes, bool masked_tail, At at);
  // Whether a phase's expression can run a tail masked to the row: no column read that a lane
  // past the row would make out of bounds (a strided column, a gather with an index per column).
  // Called after emit_gathered_rows for the phase.
  bool maskable(const LoopPlan& expression, const std::vector<int>& reads) const;
  // Loads and stores of `type` columns at `pointer`: only the lanes of tail_mask_ when it is set.
  llvm::Value* load_columns(llvm::Type* type, llvm::Value* pointer, llvm::Align alignment);
  void store_columns(llvm::Value* value, llvm::Value* pointer, llvm::Align alignment);
  // At `column` of the current phase (`count` columns a step): its share of the next row's inputs
  // (share_). `writes`: the column values the phase stores (a loop phase's), whose next rows it
  // also prefetches for writing when they are output rows and share_.writes.
  void emit_next_row_prefetch(llvm::Value* column, std::int64_t count, const std::vector<int>& writes);
  void emit_reduce_phase(const RowPlanPhase& phase, llvm::Value* row, llvm::Value* columns);
  llvm::Value* emit_producer(const RowPlanPhase& phase, unsigned lanes, llvm::Value* column,
                             const std::vector<llvm::Value*>& hoisted);
  llvm::Value* combine(const RowPlanPhase& phase, unsigned lanes, llvm::Value* a, llvm::Value* b) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    llvm::Value* operands[] = {a, b};
    return emitter.emit(combine_op(phase.op, phase.accumulator_dtype), phase.accumulator_dtype,
                        phase.accumulator_dtype, operands);
  }

  const RowPlan& plan_;
  // The phase being emitted, as emit_next_row_prefetch divides the next row among the phases:
  // phase `index` of `count` asks for the next row's elements [index, index + 1) * columns / count
  // of each input; `writes` is true for the one phase that also prefetches its output rows.
  struct PrefetchShare {
    std::int64_t index = 0, count = 1;
    bool writes = true;
  } share_;
  int vector_bits_;
  llvm::Value* columns_ = nullptr;
  llvm::Value* inner_rows_ = nullptr;  // RowArgs::inner_rows
  llvm::Value* row_step_ = nullptr;    // RowArgs::row_step, or 1 without column_reduce phases
  std::vector<llvm::Value*> column_lanes_;  // RowArgs::column_lanes, per column_reduce phase
  llvm::Value* row_ = nullptr;    // the current row
  llvm::Value* fault_ = nullptr;  // RowArgs::fault, when a value is gathered
  std::vector<Current> current_;
  // Per node of the current phase's expression: the gathered row of a gather whose index is the
  // same across the row (emit_gathered_rows), else null.
  std::vector<llvm::Value*> gathered_rows_;
  // The lanes in the row of the columns being emitted, while a tail masked to the row is
  // (emit_column_walk, emit_reduce_phase); null otherwise. load_columns and store_columns read
  // and write those lanes only.
  llvm::Value* tail_mask_ = nullptr;
};

template <typename Body>
void RowLowering::emit_counted_loop(const char* name, llvm::Value* start, llvm::Value* end,
                                 std::int64_t step, Body body) {
  codegen::emit_counted_loop(builder_, function_, name, start, end, step, body);
}

void RowLowering::build(const std::string& symbol) {
  begin_function(symbol, vector_bits_);
  emit_prologue();
  codegen::emit_counted_loop(builder_, function_, "row", begin_, end_, row_step_, [&](llvm::Value* row) {
    row_ = row;
    emit_row_setup(row);
    // Every phase asks for its share of the next row's inputs (emit_next_row_prefetch), so the
    // memory stream runs beside the compute of the whole row: when only one phase asked for all
    // of it, that phase waited on memory while the others left it idle (docs/reductions.md: W5
    // f64 15% faster, the six-phase softmax backward most). The next output rows are prefetched
    // for writing by the first loop phase when a phase follows it (softmax's exp), else by the
    // first phase (layernorm and rmsnorm, whose only loop phase is the last, and reductions
    // alone): the last would ask only just before it stores.
    std::size_t writing = 0;
    for (std::size_t p = 0; p + 1 < plan_.phases.size(); ++p)
      if (plan_.phases[p].kind == RowPhaseKind::loop) {
        writing = p;
        break;
      }
    std::size_t column_reduces = 0;
    for (std::size_t p = 0; p < plan_.phases.size(); ++p) {
      share_ = {static_cast<std::int64_t>(p), static_cast<std::int64_t>(plan_.phases.size()), p == writing};
      switch (plan_.phases[p].kind) {
        case RowPhaseKind::loop: emit_loop_phase(plan_.phases[p]); break;
        case RowPhaseKind::reduce: emit_reduce_phase(plan_.phases[p], row, columns_); break;
        case RowPhaseKind::column_reduce: emit_column_reduce_phase(plan_.phases[p], column_reduces++); break;
      }
    }
  });
  if (plan_.streaming_stores) fence_streaming_stores(builder_, module_);
  builder_.CreateRetVoid();
}

void RowLowering::emit_prologue() {
  llvm::Value* args = args_;
  auto field = [&](llvm::Type* type, std::size_t offset, const char* name) {
    return builder_.CreateAlignedLoad(
        type, builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args, offset),
        llvm::Align(8), name);
  };
  llvm::Type* pointer = builder_.getPtrTy();
  columns_ = field(index_type_, offsetof(RowArgs, columns), "columns");
  llvm::Value* inputs = field(pointer, offsetof(RowArgs, inputs), "inputs");
  llvm::Value* strides = field(pointer, offsetof(RowArgs, input_strides), "strides");
  inner_rows_ = field(index_type_, offsetof(RowArgs, inner_rows), "inner_rows");
  llvm::Value* outputs = field(pointer, offsetof(RowArgs, outputs), "outputs");
  llvm::Value* scratch = field(pointer, offsetof(RowArgs, scratch), "scratch");
  row_step_ = plan_.reduces_rows ? field(index_type_, offsetof(RowArgs, row_step), "row_step") : index(1);
  column_lanes_.clear();
  if (plan_.reduces_rows) {
    llvm::Value* lanes = field(pointer, offsetof(RowArgs, column_lanes), "column_lanes");
    for (const RowPlanPhase& phase : plan_.phases)
      if (phase.kind == RowPhaseKind::column_reduce)
        column_lanes_.push_back(load_pointer(lanes, column_lanes_.size(), "lanes"));
  }
  auto stride = [&](int input, int which) {
    return builder_.CreateAlignedLoad(
        index_type_,
        builder_.CreateConstInBoundsGEP1_64(index_type_, strides,
                                            static_cast<std::uint64_t>(3 * input + which)),
        llvm::Align(8), "stride");
  };
  bool gathers = false;
  for (const RowValue& value : plan_.values) gathers = gathers || value.gathered;
  llvm::Value* bounds = gathers ? field(pointer, offsetof(RowArgs, gather_bounds), "gather_bounds") : nullptr;
  if (gathers) fault_ = field(pointer, offsetof(RowArgs, fault), "fault");
  current_.assign(plan_.values.size(), Current{});
  for (std::size_t v = 0; v < plan_.values.size(); ++v) {
    const RowValue& value = plan_.values[v];
    Current& c = current_[v];
    switch (value.kind) {
      case RowValueKind::column_input:
      case RowValueKind::row_input:
        c.base = load_pointer(inputs, static_cast<std::size_t>(value.input), "input");
        c.outer_row_stride = stride(value.input, 0);
        c.row_stride = stride(value.input, 1);
        if (value.kind == RowValueKind::column_input && value.access == InnerAccess::strided)
          c.column_stride = stride(value.input, 2);
        if (value.gathered) {
          c.extent = load_index(bounds, index(2 * std::int64_t{value.input}), "extent");
          c.axis_stride = load_index(bounds, index(2 * std::int64_t{value.input} + 1), "axis_stride");
        }
        break;
      case RowValueKind::column_value:
        c.base = value.output >= 0
                     ? load_pointer(outputs, static_cast<std::size_t>(value.output), "output")
                     : load_pointer(scratch, static_cast<std::size_t>(value.scratch), "scratch");
        break;
      case RowValueKind::row_value:
        if (value.output >= 0)
          c.base = load_pointer(outputs, static_cast<std::size_t>(value.output), "output");
        break;
    }
  }
}

void RowLowering::emit_row_setup(llvm::Value* row) {
  ElementwiseEmitter scalar(builder_, module_, 1);
  const RowPosition at = row_position(row);
  const RowPosition next = plan_.reduces_rows ? row_position(builder_.CreateAdd(row, row_step_)) : next_position(at);
  for (std::size_t v = 0; v < plan_.values.size(); ++v) {
    const RowValue& value = plan_.values[v];
    Current& c = current_[v];
    llvm::Type* element = memory_type(value.dtype);
    switch (value.kind) {
      case RowValueKind::column_input:
        c.row = builder_.CreateGEP(element, c.base, row_offset(c, at), "row");
        c.next_row = builder_.CreateGEP(element, c.base, row_offset(c, next), "next_row");
        if (value.access == InnerAccess::broadcast && !value.gathered)
          c.scalar = scalar.from_memory(
              value.dtype, builder_.CreateAlignedLoad(element, c.row, align(value.dtype)));
        break;
      case RowValueKind::row_input:
        c.scalar = scalar.from_memory(
            value.dtype,
            builder_.CreateAlignedLoad(
                element, builder_.CreateGEP(element, c.base, row_offset(c, at)),
                align(value.dtype)));
        break;
      case RowValueKind::column_value:
        c.row = value.output >= 0
                    ? builder_.CreateGEP(element, c.base, builder_.CreateMul(row, columns_), "row")
                    : c.base;
        break;
      case RowValueKind::row_value:
        c.scalar = nullptr;  // computed by its phase
        break;
    }
  }
}

llvm::Value* RowLowering::load_value(int v, unsigned lanes, llvm::Value* column) {
  const RowValue& value = plan_.values[static_cast<std::size_t>(v)];
  const Current& c = current_[static_cast<std::size_t>(v)];
  TJ_INTERNAL_CHECK(!value.gathered) << "row kernel: value " << v << " is read only by gathers";
  ElementwiseEmitter emitter(builder_, module_, lanes);
  llvm::Type* element = memory_type(value.dtype);
  const bool splat = value.kind == RowValueKind::row_input || value.kind == RowValueKind::row_value ||
                     (value.kind == RowValueKind::column_input && value.access == InnerAccess::broadcast);
  if (splat) {
    TJ_INTERNAL_CHECK(c.scalar) << "row kernel: value " << v << " is read before its phase";
    return lanes == 1 ? c.scalar : builder_.CreateVectorSplat(lanes, c.scalar);
  }
  if (value.kind == RowValueKind::column_input && value.access == InnerAccess::strided) {
    // Scalar loads assembled with insertelement: gathers are slow on the CPUs we target.
    auto load_at = [&](llvm::Value* at) {
      llvm::Value* pointer =
          builder_.CreateGEP(element, c.row, builder_.CreateMul(at, c.column_stride));
      return builder_.CreateAlignedLoad(element, pointer, align(value.dtype));
    };
    if (lanes == 1) return emitter.from_memory(value.dtype, load_at(column));
    llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes));
    for (unsigned lane = 0; lane < lanes; ++lane)
      vector = builder_.CreateInsertElement(
          vector, load_at(builder_.CreateAdd(column, index(lane))), lane);
    return emitter.from_memory(value.dtype, vector);
  }
  llvm::Type* type = lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
  return emitter.from_memory(value.dtype,
                             load_columns(type, builder_.CreateGEP(element, c.row, column), align(value.dtype)));
}

bool RowLowering::maskable(const LoopPlan& expression, const std::vector<int>& reads) const {
  for (std::size_t n = 0; n < expression.nodes.size(); ++n) {
    const LoopPlanNode& node = expression.nodes[n];
    if (node.op == ir::Op::gather) {
      const auto leaf = static_cast<std::size_t>(expression.nodes[static_cast<std::size_t>(node.operands[0])].input_index);
      const RowValue& table = plan_.values[static_cast<std::size_t>(reads[leaf])];
      if (gathered_rows_.empty() || !gathered_rows_[n] || table.access == InnerAccess::strided) return false;
    } else if (node.op == ir::Op::input) {
      const RowValue& value = plan_.values[static_cast<std::size_t>(reads[static_cast<std::size_t>(node.input_index)])];
      if (value.kind == RowValueKind::column_input && value.access == InnerAccess::strided) return false;
    }
  }
  return true;
}

llvm::Value* RowLowering::load_columns(llvm::Type* type, llvm::Value* pointer, llvm::Align alignment) {
  if (tail_mask_ == nullptr || !type->isVectorTy()) return builder_.CreateAlignedLoad(type, pointer, alignment);
  return builder_.CreateMaskedLoad(type, pointer, alignment, tail_mask_, llvm::Constant::getNullValue(type));
}

void RowLowering::store_columns(llvm::Value* value, llvm::Value* pointer, llvm::Align alignment) {
  if (tail_mask_ == nullptr || !value->getType()->isVectorTy()) builder_.CreateAlignedStore(value, pointer, alignment);
  else builder_.CreateMaskedStore(value, pointer, alignment, tail_mask_);
}

template <typename LoadInput>
std::vector<llvm::Value*> RowLowering::emit_expression(const LoopPlan& plan, unsigned lanes,
                                                       LoadInput load_input,
                                                       const std::vector<llvm::Value*>& hoisted,
                                                       const std::vector<bool>& only,
                                                       const std::vector<int>* reads, llvm::Value* column) {
  ElementwiseEmitter emitter(builder_, module_, lanes);
  std::vector<llvm::Value*> values(plan.nodes.size(), nullptr);
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const LoopPlanNode& node = plan.nodes[n];
    if (!only.empty() && !only[n]) continue;
    if (!hoisted.empty() && hoisted[n]) {
      values[n] = lanes == 1 ? hoisted[n] : builder_.CreateVectorSplat(lanes, hoisted[n]);
    } else if (node.op == ir::Op::input) {
      // A gathered input has no value of its own: its gathers read it at their indices.
      if (!plan.input_gathered[static_cast<std::size_t>(node.input_index)])
        values[n] = load_input(static_cast<std::size_t>(node.input_index));
    } else if (node.op == ir::Op::gather) {
      TJ_INTERNAL_CHECK(reads && column) << "row kernel: a gather outside a phase's column loop";
      values[n] = emit_gather(plan, *reads, n, lanes, column, values[static_cast<std::size_t>(node.operands[1])]);
    } else if (node.op == ir::Op::constant) {
      values[n] = emitter.constant(node.dtype, node.constant);
    } else {
      std::vector<llvm::Value*> operands;
      for (int operand : node.operands) operands.push_back(values[operand]);
      values[n] = emitter.emit(node.op, node.dtype, plan.nodes[node.operands.back()].dtype, operands);
    }
  }
  return values;
}

// Asks for the phase's share of the next row (share_) of every contiguous column input that
// differs from row to row, into L2: a row's first phase then reads from cache while the memory
// stream overlaps the compute of the row before (the hardware prefetchers do not run a whole row
// ahead). Likewise, for writing, the next row of each output row the phase stores to:
// the store there (softmax's exp(x - max)) then finds the line in L2 instead of waiting for the
// read from memory that a store to an uncached line needs (7-9% less CPU time for the 4096 x 4096
// f32 softmax, docs/reductions.md). Only the phase's own stores: layernorm, which prefetches
// from its first phase and stores in its last, was 10% slower when its first phase also asked
// for the next output row. Nor for rows written with streaming stores, which skip the caches.
// Prefetches past the last row are harmless: they never fault.
void RowLowering::emit_next_row_prefetch(llvm::Value* column, std::int64_t count,
                                         const std::vector<int>& writes) {
  llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch,
                                                             {builder_.getPtrTy()});
  for (std::size_t v = 0; v < plan_.values.size(); ++v) {
    const RowValue& value = plan_.values[v];
    // A gathered row is found by its index (which the next row may not share).
    if (value.kind != RowValueKind::column_input || value.access != InnerAccess::contiguous ||
        value.same_every_row || value.gathered)
      continue;
    const auto size = static_cast<std::int64_t>(itemsize(value.dtype));
    // Column c of the phase asks for element (c + index * columns) / count of the next row:
    // count phases' walks cover it once, each line asked for about count times in a row (a
    // prefetch of a line already on its way costs a load slot, not a memory access).
    llvm::Value* at = column;
    if (share_.count > 1)
      at = builder_.CreateSDiv(builder_.CreateAdd(column, builder_.CreateMul(columns_, index(share_.index))),
                               index(share_.count));
    llvm::Value* next = builder_.CreateGEP(memory_type(value.dtype), current_[v].next_row, at);
    for (std::int64_t byte = 0; byte < std::max<std::int64_t>(64, count * size / share_.count); byte += 64)
      builder_.CreateCall(prefetch, {builder_.CreateConstGEP1_64(builder_.getInt8Ty(), next, byte),
                                     builder_.getInt32(0), builder_.getInt32(2), builder_.getInt32(1)});
  }
  for (int w : writes) {
    if (!share_.writes) break;
    const auto v = static_cast<std::size_t>(w);
    const RowValue& value = plan_.values[v];
    if (value.output < 0 || plan_.streamed[v]) continue;  // streamed: written around the caches
    const auto size = static_cast<std::int64_t>(itemsize(value.dtype));
    llvm::Value* next = builder_.CreateGEP(memory_type(value.dtype), current_[v].row,
                                           builder_.CreateAdd(builder_.CreateMul(row_step_, columns_), column));
    for (std::int64_t byte = 0; byte < count * size; byte += 64)
      builder_.CreateCall(prefetch, {builder_.CreateConstGEP1_64(builder_.getInt8Ty(), next, byte),
                                     builder_.getInt32(1), builder_.getInt32(2), builder_.getInt32(1)});
  }
}

// Scalars and vectors of one op give the same bits per lane (emit_elementwise.hpp), so an op
// computed once per row and splat equals the op on splat operands. LLVM does not hoist these out
// of the column loop by itself (rsqrt of a row's variance stayed a sqrt and a division per vector).
// Only the invariant ops are emitted here, before the column loop, which a row of no columns
// skips: a column input read at column 0 for an op whose value is thrown away was not always
// removed as dead (sin's slow-path branch kept it), and read past the end of an empty row (a
// crash for an empty from_blob without memory).
std::vector<bool> RowLowering::row_invariant_nodes(const LoopPlan& plan, const std::vector<int>& reads) {
  std::vector<bool> invariant(plan.nodes.size(), false);
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const LoopPlanNode& node = plan.nodes[n];
    if (node.op == ir::Op::constant) {
      invariant[n] = true;
    } else if (node.op == ir::Op::input) {
      const auto read = reads[static_cast<std::size_t>(node.input_index)];
      const RowValue& value = plan_.values[static_cast<std::size_t>(read)];
      invariant[n] = !value.gathered &&
                     (value.kind == RowValueKind::row_input || value.kind == RowValueKind::row_value ||
                      (value.kind == RowValueKind::column_input && value.access == InnerAccess::broadcast));
    } else if (node.op != ir::Op::gather) {
      invariant[n] = true;
      for (int operand : node.operands)
        invariant[n] = invariant[n] && invariant[static_cast<std::size_t>(operand)];
    }
  }
  return invariant;
}

std::vector<llvm::Value*> RowLowering::emit_row_invariants(const LoopPlan& plan,
                                                           const std::vector<int>& reads) {
  const std::vector<bool> invariant = row_invariant_nodes(plan, reads);
  bool any = false;
  for (std::size_t n = 0; n < plan.nodes.size(); ++n)
    any = any || (invariant[n] && !plan.nodes[n].operands.empty());
  if (!any) return {};
  std::vector<llvm::Value*> scalars = emit_expression(
      plan, 1, [&](std::size_t k) { return load_value(reads[k], 1, index(0)); }, {}, invariant);
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const ir::Op op = plan.nodes[n].op;
    if (op == ir::Op::input || op == ir::Op::constant) scalars[n] = nullptr;
  }
  return scalars;
}

void RowLowering::emit_gathered_rows(const LoopPlan& plan, const std::vector<int>& reads,
                                     const std::vector<llvm::Value*>& hoisted) {
  gathered_rows_.assign(plan.nodes.size(), nullptr);
  std::vector<bool> invariant;
  ElementwiseEmitter scalar(builder_, module_, 1);
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const LoopPlanNode& node = plan.nodes[n];
    if (node.op != ir::Op::gather) continue;
    if (invariant.empty()) invariant = row_invariant_nodes(plan, reads);
    const auto i = static_cast<std::size_t>(node.operands[1]);
    if (!invariant[i]) continue;
    const LoopPlanNode& index_node = plan.nodes[i];
    llvm::Value* value = hoisted.empty() ? nullptr : hoisted[i];
    if (index_node.op == ir::Op::constant)
      value = scalar.constant(index_node.dtype, index_node.constant);
    else if (index_node.op == ir::Op::input)
      value = load_value(reads[static_cast<std::size_t>(index_node.input_index)], 1, index(0));
    TJ_INTERNAL_CHECK(value) << "row kernel: a gather's index the same across the row was not computed";
    value = builder_.CreateSExtOrBitCast(value, index_type_, "index");
    const auto v = static_cast<std::size_t>(reads[static_cast<std::size_t>(plan.nodes[static_cast<std::size_t>(node.operands[0])].input_index)]);
    const Current& c = current_[v];
    ResolvedIndex resolved = resolve_index(builder_, value, c.extent);
    // A row of no columns reads nothing of the gathered row, and has no index to check.
    ResolvedIndex checked = resolved;
    checked.inside = builder_.CreateOr(resolved.inside, builder_.CreateICmpEQ(columns_, index(0)));
    emit_index_fault(builder_, fault_, plan_.values[v].input, checked, value, builder_.CreateMul(row_, columns_));
    gathered_rows_[n] = builder_.CreateGEP(memory_type(plan_.values[v].dtype), c.row,
                                           builder_.CreateMul(resolved.element, c.axis_stride), "gathered_row");
    if (index_node.op == ir::Op::input)
      emit_gathered_row_prefetch(v, static_cast<std::size_t>(reads[static_cast<std::size_t>(index_node.input_index)]));
  }
}

// The gathered row a later row will read, asked for now: the rows of a large table (an embedding's
// 30522 x 384 words) are far apart in memory, and a row kernel's phases (layernorm's reductions)
// keep the out-of-order core from reaching the next row's loads by itself, so each gathered row
// would cost a memory latency. For an index read straight from memory (take's ids: a broadcast
// column input or a row input), row r asks for the gathered row of row r + kGatherAhead (the
// call's last row when past it: its ids are readable), whose index is resolved but not checked
// (that row checks it), into L2, a line at a time. A prefetch never faults.
void RowLowering::emit_gathered_row_prefetch(std::size_t gathered, std::size_t index_value) {
  const RowValue& index_value_kind = plan_.values[index_value];
  const bool in_memory = index_value_kind.kind == RowValueKind::row_input ||
                         (index_value_kind.kind == RowValueKind::column_input && index_value_kind.access == InnerAccess::broadcast);
  if (!in_memory || index_value_kind.gathered) return;
  constexpr std::int64_t kGatherAhead = 2;
  const Current& index_source = current_[index_value];
  const Current& table = current_[gathered];
  const RowPosition ahead = row_position(builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, builder_.CreateAdd(row_, builder_.CreateMul(row_step_, index(kGatherAhead))),
      builder_.CreateSub(end_, index(1))));
  llvm::Type* index_element = memory_type(index_value_kind.dtype);
  llvm::Value* later = builder_.CreateAlignedLoad(
      index_element, builder_.CreateGEP(index_element, index_source.base, row_offset(index_source, ahead)),
      align(index_value_kind.dtype));
  later = builder_.CreateSExtOrBitCast(later, index_type_);
  const ResolvedIndex resolved = resolve_index(builder_, later, table.extent);
  const DType dtype = plan_.values[gathered].dtype;
  llvm::Type* element = memory_type(dtype);
  llvm::Value* first = builder_.CreateGEP(element, table.base,
                                          builder_.CreateAdd(row_offset(table, ahead),
                                                             builder_.CreateMul(resolved.element, table.axis_stride)));
  const auto size = static_cast<std::int64_t>(itemsize(dtype));
  llvm::Value* bytes = builder_.CreateMul(columns_, index(size));
  // Contiguous columns only: a strided row's lines are not consecutive.
  if (plan_.values[gathered].access != InnerAccess::contiguous) bytes = index(std::min<std::int64_t>(size, 64));
  llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {builder_.getPtrTy()});
  emit_counted_loop("gather_prefetch", index(0), bytes, 64, [&](llvm::Value* byte) {
    builder_.CreateCall(prefetch, {builder_.CreateGEP(builder_.getInt8Ty(), first, byte), builder_.getInt32(0),
                                   builder_.getInt32(2), builder_.getInt32(1)});
  });
}

llvm::Value* RowLowering::emit_gather(const LoopPlan& plan, const std::vector<int>& reads, std::size_t n,
                                      unsigned lanes, llvm::Value* column, llvm::Value* indices) {
  const LoopPlanNode& node = plan.nodes[n];
  const auto v = static_cast<std::size_t>(reads[static_cast<std::size_t>(plan.nodes[static_cast<std::size_t>(node.operands[0])].input_index)]);
  const RowValue& value = plan_.values[v];
  const Current& c = current_[v];
  llvm::Type* element = memory_type(value.dtype);
  ElementwiseEmitter emitter(builder_, module_, lanes);
  // Lane l of a row reads element row + (column + l) * step + shift.
  llvm::Value* step = value.access == InnerAccess::contiguous ? index(1)
                      : value.access == InnerAccess::strided  ? c.column_stride
                                                              : index(0);
  if (!gathered_rows_.empty() && gathered_rows_[n]) {
    llvm::Value* row = gathered_rows_[n];
    if (value.access == InnerAccess::contiguous) {
      llvm::Type* type = lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
      return emitter.from_memory(value.dtype, load_columns(type, builder_.CreateGEP(element, row, column),
                                                                        align(value.dtype)));
    }
    if (value.access == InnerAccess::broadcast) {
      llvm::Value* loaded = ElementwiseEmitter(builder_, module_, 1)
                                .from_memory(value.dtype, builder_.CreateAlignedLoad(element, row, align(value.dtype)));
      return lanes == 1 ? loaded : builder_.CreateVectorSplat(lanes, loaded);
    }
    llvm::Value* vector = lanes == 1 ? nullptr : llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes));
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value* at = builder_.CreateGEP(element, row, builder_.CreateMul(builder_.CreateAdd(column, index(lane)), step));
      llvm::Value* loaded = builder_.CreateAlignedLoad(element, at, align(value.dtype));
      vector = lanes == 1 ? loaded : builder_.CreateInsertElement(vector, loaded, lane);
    }
    return emitter.from_memory(value.dtype, vector);
  }
  // An index that varies along the row: resolved and checked per lane, one load per lane.
  llvm::Type* wide = lanes == 1 ? index_type_ : llvm::FixedVectorType::get(index_type_, lanes);
  llvm::Value* values = builder_.CreateSExtOrBitCast(indices, wide, "index");
  const ResolvedIndex resolved = resolve_index(builder_, values, c.extent);
  emit_index_fault(builder_, fault_, value.input, resolved, values,
                   builder_.CreateAdd(builder_.CreateMul(row_, columns_), column));
  llvm::Value* vector = lanes == 1 ? nullptr : llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes));
  for (unsigned lane = 0; lane < lanes; ++lane) {
    llvm::Value* k = lanes == 1 ? resolved.element : builder_.CreateExtractElement(resolved.element, lane);
    llvm::Value* offset = builder_.CreateAdd(builder_.CreateMul(builder_.CreateAdd(column, index(lane)), step),
                                             builder_.CreateMul(k, c.axis_stride));
    llvm::Value* loaded = builder_.CreateAlignedLoad(element, builder_.CreateGEP(element, c.row, offset), align(value.dtype));
    vector = lanes == 1 ? loaded : builder_.CreateInsertElement(vector, loaded, lane);
  }
  return emitter.from_memory(value.dtype, vector);
}

template <typename At>
void RowLowering::emit_column_walk(const LoopPlan& expression, const std::vector<int>& writes, bool masked_tail,
                                   At at) {
  LoopShape shape = choose_loop_shape(expression, vector_bits_);
  if (shape.interleaved) {
    // A row phase with vector math keeps one vector per iteration: with four registers
    // interleaved W5's softmax (its exp phase) took 4.2-4.8 ms instead of 3.9-4.2 in f32 and
    // 12.1-12.4 instead of 11.1-11.5 in f64 (docs/loop_kernels.md).
    shape.unroll = 1;
    shape.interleaved = false;
  }
  const auto lanes = static_cast<std::int64_t>(shape.lanes);
  const std::int64_t group = lanes * shape.unroll;
  llvm::Value* unrolled_end = builder_.CreateAnd(columns_, index(~(group - 1)));
  llvm::Value* vector_end = builder_.CreateAnd(columns_, index(~(lanes - 1)));
  emit_counted_loop("loop_unrolled", index(0), unrolled_end, group, [&](llvm::Value* column) {
    emit_next_row_prefetch(column, group, writes);
    for (unsigned u = 0; u < shape.unroll; ++u)
      at(shape.lanes, builder_.CreateAdd(column, index(u * lanes)));
  });
  emit_counted_loop("loop_vector", unrolled_end, vector_end, lanes,
                    [&](llvm::Value* column) { at(shape.lanes, column); });
  if (!masked_tail || lanes == 1) {
    emit_counted_loop("loop_tail", vector_end, columns_, 1, [&](llvm::Value* column) { at(1, column); });
    return;
  }
  llvm::BasicBlock* tail = block("loop_masked_tail");
  llvm::BasicBlock* done = block("loop_done");
  builder_.CreateCondBr(builder_.CreateICmpSLT(vector_end, columns_), tail, done);
  builder_.SetInsertPoint(tail);
  tail_mask_ = lanes_below(shape.lanes, builder_.CreateSub(columns_, vector_end));
  at(shape.lanes, vector_end);
  tail_mask_ = nullptr;
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

void RowLowering::emit_loop_phase(const RowPlanPhase& phase) {
  const std::vector<llvm::Value*> hoisted = emit_row_invariants(phase.expression, phase.reads);
  emit_gathered_rows(phase.expression, phase.reads, hoisted);
  emit_column_walk(phase.expression, phase.writes, maskable(phase.expression, phase.reads),
                   [&](unsigned lanes, llvm::Value* column) {
    std::vector<llvm::Value*> values = emit_expression(phase.expression, lanes, [&](std::size_t k) {
      return load_value(phase.reads[k], lanes, column);
    }, hoisted, {}, &phase.reads, column);
    ElementwiseEmitter emitter(builder_, module_, lanes);
    for (std::size_t j = 0; j < phase.writes.size(); ++j) {
      const int v = phase.writes[j];
      const DType dtype = plan_.values[static_cast<std::size_t>(v)].dtype;
      llvm::Value* pointer = builder_.CreateGEP(memory_type(dtype),
                                                current_[static_cast<std::size_t>(v)].row, column);
      llvm::Value* stored = emitter.to_memory(dtype, values[phase.expression.outputs[j]]);
      const std::uint64_t vector_bytes = std::uint64_t{lanes} * itemsize(dtype);
      // A row's vectors start on a multiple of the lane count from its 64-byte aligned start.
      if (plan_.streamed[static_cast<std::size_t>(v)] && lanes > 1 && vector_bytes >= 16 && tail_mask_ == nullptr)
        store_streaming(builder_, stored, pointer, vector_bytes);
      else
        store_columns(stored, pointer, align(dtype));
    }
  });
}

// Row r's values go to lane r mod V of block r / kReductionBlock (a block holds whole groups of
// V rows). A call runs rows V apart (32 apart with f64 sums beside f32 ones: two lanes of the
// f32 sums), so its lane rows stay in L1 across the call.
void RowLowering::emit_column_reduce_phase(const RowPlanPhase& phase, std::size_t lanes_index) {
  const DType accumulator = phase.accumulator_dtype;
  const std::int64_t lane_count = ir::reduction_lanes(itemsize(accumulator));
  llvm::Type* element = memory_type(accumulator);
  llvm::Value* block = builder_.CreateUDiv(row_, index(ir::kReductionBlock), "lanes_block");
  llvm::Value* lane = builder_.CreateAnd(row_, index(lane_count - 1), "lane");
  llvm::Value* lane_row = builder_.CreateGEP(
      element, column_lanes_[lanes_index],
      builder_.CreateMul(builder_.CreateAdd(builder_.CreateMul(block, index(lane_count)), lane), columns_), "lane_row");
  const std::vector<llvm::Value*> hoisted = emit_row_invariants(phase.expression, phase.reads);
  emit_gathered_rows(phase.expression, phase.reads, hoisted);
  emit_column_walk(phase.expression, {}, maskable(phase.expression, phase.reads),
                   [&](unsigned lanes, llvm::Value* column) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    llvm::Type* type = lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
    llvm::Value* pointer = builder_.CreateGEP(element, lane_row, column);
    llvm::Value* old = emitter.from_memory(accumulator, load_columns(type, pointer, align(accumulator)));
    llvm::Value* sum = combine(phase, lanes, old, emit_producer(phase, lanes, column, hoisted));
    store_columns(emitter.to_memory(accumulator, sum), pointer, align(accumulator));
  });
}

llvm::Value* RowLowering::emit_producer(const RowPlanPhase& phase, unsigned lanes, llvm::Value* column,
                                        const std::vector<llvm::Value*>& hoisted) {
  std::vector<llvm::Value*> values = emit_expression(phase.expression, lanes, [&](std::size_t k) {
    return load_value(phase.reads[k], lanes, column);
  }, hoisted, {}, &phase.reads, column);
  llvm::Value* element = values[phase.expression.outputs.front()];
  if (phase.input_dtype == phase.accumulator_dtype) return element;
  ElementwiseEmitter emitter(builder_, module_, lanes);
  llvm::Value* operands[] = {element};
  return emitter.emit(ir::Op::cast, phase.accumulator_dtype, phase.input_dtype, operands);
}

void RowLowering::emit_reduce_phase(const RowPlanPhase& phase, llvm::Value* row, llvm::Value* columns) {
  const DType accumulator = phase.accumulator_dtype;
  const auto lanes = static_cast<unsigned>(ir::reduction_lanes(itemsize(accumulator)));
  llvm::Type* element = memory_type(accumulator);
  ElementwiseEmitter scalar(builder_, module_, 1);
  ElementwiseEmitter vector(builder_, module_, lanes);
  llvm::AllocaInst* lanes_memory = entry_alloca(llvm::ArrayType::get(element, lanes), "lanes");
  llvm::AllocaInst* total_memory = entry_alloca(element, "total");
  builder_.CreateStore(
      scalar.to_memory(accumulator, scalar.constant(accumulator, neutral_value(phase.op, accumulator))),
      total_memory);
  const std::vector<llvm::Value*> hoisted = emit_row_invariants(phase.expression, phase.reads);
  emit_gathered_rows(phase.expression, phase.reads, hoisted);
  const bool tail_maskable = maskable(phase.expression, phase.reads);

  emit_counted_loop("block", index(0), columns, ir::kReductionBlock, [&](llvm::Value* block_start) {
    llvm::Value* block_end = builder_.CreateBinaryIntrinsic(
        llvm::Intrinsic::smin, columns, builder_.CreateAdd(block_start, index(ir::kReductionBlock)));
    llvm::Value* groups_end = builder_.CreateAdd(
        block_start, builder_.CreateAnd(builder_.CreateSub(block_end, block_start),
                                        index(~static_cast<std::int64_t>(lanes - 1))));
    // Whole groups of V columns: the lanes stay in registers.
    llvm::Value* neutral = vector.constant(accumulator, neutral_value(phase.op, accumulator));
    llvm::Value* accumulators = emit_carried_loop(
        "lanes", "column", block_start, groups_end, lanes, neutral, [&](llvm::Value* column, llvm::Value* carried) {
          emit_next_row_prefetch(column, lanes, {});
          return combine(phase, lanes, carried, emit_producer(phase, lanes, column, hoisted));
        });
    // The block's last columns (fewer than V), when there are any: column groups_end + i goes to
    // lane i, through the lanes in memory; a block of whole groups keeps them in registers. The
    // tail updates its lanes a native vector at a time, the last one masked to the row (only the
    // lanes of columns in the row change: the same bits), or, where a lane past the row cannot be
    // read (see maskable), column by column, as a reduce kernel's tail. A row shorter than V, an
    // attention row of 16 scores, is all tail, and element by element its max and sum took most of
    // the softmax's time.
    llvm::BasicBlock* whole = builder_.GetInsertBlock();
    llvm::BasicBlock* tail = block("lane_tail_entry");
    llvm::BasicBlock* joined = block("tree");
    builder_.CreateCondBr(builder_.CreateICmpSLT(groups_end, block_end), tail, joined);
    builder_.SetInsertPoint(tail);
    builder_.CreateAlignedStore(vector.to_memory(accumulator, accumulators), lanes_memory, llvm::Align(64));
    // Lanes from column - groups_end, `width` of them; with a mask, only the columns in the row.
    auto update_lanes = [&](unsigned width, llvm::Value* tail_column, llvm::Value* mask) {
      ElementwiseEmitter emitter(builder_, module_, width);
      llvm::Type* type = width == 1 ? element : llvm::FixedVectorType::get(element, width);
      llvm::Value* pointer =
          builder_.CreateGEP(element, lanes_memory, builder_.CreateSub(tail_column, groups_end));
      llvm::Value* old = emitter.from_memory(accumulator, builder_.CreateAlignedLoad(type, pointer, align(accumulator)));
      tail_mask_ = mask;
      llvm::Value* updated = combine(phase, width, old, emit_producer(phase, width, tail_column, hoisted));
      tail_mask_ = nullptr;
      if (mask != nullptr) updated = builder_.CreateSelect(mask, updated, old);
      builder_.CreateAlignedStore(emitter.to_memory(accumulator, updated), pointer, align(accumulator));
    };
    const unsigned tail_lanes = std::min(choose_loop_shape(phase.expression, vector_bits_).lanes, lanes);
    if (tail_lanes > 1 && tail_maskable) {
      emit_counted_loop("lane_tail", groups_end, block_end, tail_lanes, [&](llvm::Value* tail_column) {
        update_lanes(tail_lanes, tail_column, lanes_below(tail_lanes, builder_.CreateSub(block_end, tail_column)));
      });
    } else {
      emit_counted_loop("lane_tail", groups_end, block_end, 1,
                        [&](llvm::Value* tail_column) { update_lanes(1, tail_column, nullptr); });
    }
    llvm::Value* with_tail = vector.from_memory(
        accumulator, builder_.CreateAlignedLoad(llvm::FixedVectorType::get(element, lanes),
                                                lanes_memory, llvm::Align(64)));
    llvm::BasicBlock* tail_end = builder_.GetInsertBlock();
    builder_.CreateBr(joined);
    builder_.SetInsertPoint(joined);
    llvm::PHINode* tree_lanes = builder_.CreatePHI(accumulators->getType(), 2, "tree_lanes");
    tree_lanes->addIncoming(accumulators, whole);
    tree_lanes->addIncoming(with_tail, tail_end);
    // The fixed tree: lane[l] ⊕= lane[l + w] for w = V/2 .. 1; the block's partial is lane 0.
    llvm::Value* tree = tree_lanes;
    for (unsigned width = lanes / 2; width >= 2; width /= 2) {
      std::vector<int> low, high;
      for (unsigned l = 0; l < width; ++l) {
        low.push_back(static_cast<int>(l));
        high.push_back(static_cast<int>(l + width));
      }
      tree = combine(phase, width, builder_.CreateShuffleVector(tree, low),
                     builder_.CreateShuffleVector(tree, high));
    }
    llvm::Value* partial = combine(phase, 1, builder_.CreateExtractElement(tree, std::uint64_t{0}),
                                   builder_.CreateExtractElement(tree, std::uint64_t{1}));
    llvm::Value* total =
        scalar.from_memory(accumulator,
                         builder_.CreateAlignedLoad(element, total_memory, align(accumulator)));
    builder_.CreateAlignedStore(scalar.to_memory(accumulator, combine(phase, 1, total, partial)),
                                total_memory, align(accumulator));
  });
  llvm::Value* total =
      scalar.from_memory(accumulator,
                         builder_.CreateAlignedLoad(element, total_memory, align(accumulator)));
  llvm::Value* result = builder_.CreateSelect(
      builder_.CreateICmpEQ(columns, index(0)),
      scalar.constant(accumulator, identity_value(phase.op, accumulator)), total, "result");

  std::vector<llvm::Value*> values = emit_expression(phase.consumer, 1, [&](std::size_t k) {
    return k == 0 ? result : load_value(phase.consumer_reads[k - 1], 1, index(0));
  });
  for (std::size_t j = 0; j < phase.consumer_writes.size(); ++j) {
    const auto v = static_cast<std::size_t>(phase.consumer_writes[j]);
    const RowValue& value = plan_.values[v];
    current_[v].scalar = values[phase.consumer.outputs[j]];
    if (value.output < 0) continue;
    llvm::Value* pointer = builder_.CreateGEP(memory_type(value.dtype), current_[v].base, row);
    builder_.CreateAlignedStore(scalar.to_memory(value.dtype, current_[v].scalar), pointer,
                                align(value.dtype));
  }
}

}  // namespace

void build_row_kernel(llvm::Module& module, const RowPlan& plan, const std::string& symbol,
                      int vector_bits) {
  RowLowering(module, plan, vector_bits).build(symbol);
}

}  // namespace tensorjit::codegen
