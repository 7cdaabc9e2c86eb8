#include "codegen/src/lower/lower_loop.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>

#include <tensorjit/ir/check.hpp>

#include "codegen/src/lower/counted_loop.hpp"
#include "codegen/src/lower/emit_elementwise.hpp"
#include "codegen/src/lower/emit_philox.hpp"
#include "codegen/src/lower/index_check.hpp"
#include "codegen/src/lower/kernel_lowering.hpp"
#include "codegen/src/lower/leaf_values.hpp"
#include "codegen/src/lower/streaming_store.hpp"
#include "codegen/src/vector_math/vector_math.hpp"

namespace tensorjit::codegen {
namespace {

// A tile kernel (a GEMM epilogue region: rows of up to 512 f32 columns, each row of a residual
// 16 KiB from the next in W8's wide layer) prefetches its contiguous inputs this many rows ahead
// into L1 before each row: the hardware prefetchers start late on such short rows. 2 and 3
// rows gave the wide gelu_tanh + residual layer 8-10% less time on two threads, 1 row about 2%
// (docs/epilogues.md).
constexpr std::int64_t kTilePrefetchRows = 2;

// Whether `node` is a philox of a uniform key (a literal or a broadcast input) at the element's
// own position (a contiguous i64 iota from 0 by 1): the random bits of consecutive elements, four
// to a block, which the loop computes a block at a time (emit_philox_run).
bool is_philox_run(const LoopPlan& plan, const LoopPlanNode& node) {
  if (node.op != ir::Op::philox) return false;
  const LoopPlanNode& key = plan.nodes[static_cast<std::size_t>(node.operands[0])];
  const LoopPlanNode& position = plan.nodes[static_cast<std::size_t>(node.operands[1])];
  const bool uniform_key =
      key.op == ir::Op::constant ||
      (key.op == ir::Op::input && plan.access[static_cast<std::size_t>(key.input_index)] == InnerAccess::broadcast);
  if (!uniform_key || position.op != ir::Op::input) return false;
  const auto k = static_cast<std::size_t>(position.input_index);
  const auto& iota = plan.input_iotas[k];
  return iota && iota->start == 0 && iota->step == 1 && plan.input_dtypes[k] == DType::i64 &&
         plan.access[k] == InnerAccess::contiguous;
}

// The kernel's view of one input inside a row piece.
struct RowInput {
  llvm::Value* row_pointer = nullptr;    // element (row, first column of the piece)
  llvm::Value* inner_stride = nullptr;   // strided inputs: elements between columns
  llvm::Value* broadcast_scalar = nullptr;  // broadcast inputs: the one value, in a register
  llvm::Value* broadcast_vector = nullptr;  // ... splat to `lanes`
};

class LoopLowering : KernelLowering {
 public:
  LoopLowering(llvm::Module& module, const LoopPlan& plan, LoopShape shape)
      : KernelLowering(module), plan_(plan), shape_(shape) {}

  void build(const std::string& symbol, int vector_bits);

 private:
  // ---- helpers ----
  // args->input_strides[k * kMaxLoopRank + axis]
  llvm::Value* input_stride(std::size_t k, llvm::Value* axis) {
    return load_index(strides_,
                      builder_.CreateAdd(index(static_cast<std::int64_t>(k) * kMaxLoopRank), axis),
                      "stride");
  }
  bool tile() const { return plan_.form == LoopForm::tile; }
  // Tile and placed kernels write their outputs through strides, flat ones at the flat position.
  bool walks_outputs() const { return plan_.form != LoopForm::flat; }
  // A placed kernel's output whose inner stride is not 1 (LoopKernelSpec::output_access).
  bool output_strided(std::size_t j) const { return plan_.output_access[j] == InnerAccess::strided; }
  // Walkers are what moves through memory by strides from row to row: every input, then, in a
  // tile or placed kernel, every output (args->output_strides[j * kMaxLoopRank + axis]).
  std::size_t walker_count() const {
    return plan_.input_dtypes.size() + (walks_outputs() ? plan_.outputs.size() : 0);
  }
  llvm::Value* walker_stride(std::size_t w, llvm::Value* axis) {
    const std::size_t inputs = plan_.input_dtypes.size();
    if (w < inputs) return input_stride(w, axis);
    llvm::Value* position =
        builder_.CreateAdd(index(static_cast<std::int64_t>(w - inputs) * kMaxLoopRank), axis);
    return load_index(output_strides_, position, "output_stride");
  }
  llvm::Type* element_type(DType dtype) { return memory_element_type(context_, dtype); }
  llvm::Align element_align(DType dtype) { return llvm::Align(itemsize(dtype)); }

  void emit_prologue();
  void emit_decomposition(llvm::BasicBlock* row_header, llvm::BasicBlock* exit);
  void emit_row(llvm::BasicBlock* row_header, llvm::BasicBlock* exit);
  void emit_tile(llvm::BasicBlock* exit);
  void emit_tile_prefetch(const std::vector<llvm::Value*>& row_strides);
  void emit_row_piece(llvm::Value* column, llvm::Value* position, llvm::Value* count);
  void emit_odometer(llvm::BasicBlock* row_header, llvm::BasicBlock* exit,
                     llvm::Value* next_position);
  // A loop over columns [start, count) in steps of lanes * unroll while a whole step fits; returns
  // the first column it did not process.
  llvm::Value* emit_inner_loop(const char* name, unsigned lanes, unsigned unroll,
                               llvm::Value* start, llvm::Value* count);
  // The whole expression on `lanes` columns from `column`, stored to every output.
  void emit_chunk(unsigned lanes, llvm::Value* column);
  // A philox run (is_philox_run) on `lanes` columns from `column`: each block computed once when
  // the first column's position is a multiple of 4 (emit_philox_run), else one block per lane.
  llvm::Value* emit_philox_chunk(std::size_t n, unsigned lanes, llvm::Value* column);
  // The key of philox run `node` (an i64 scalar) in the current row piece.
  llvm::Value* philox_key(const LoopPlanNode& node);
  llvm::Value* load_input(std::size_t k, unsigned lanes, llvm::Value* column);
  // A gather on `lanes` columns from `column`, its indices' values `indices` (loop_kernel.hpp,
  // "Gathers").
  llvm::Value* emit_gather(const LoopPlanNode& node, unsigned lanes, llvm::Value* column, llvm::Value* indices);

  const LoopPlan& plan_;
  LoopShape shape_;

  llvm::Value* rank_ = nullptr;
  llvm::Value* last_axis_ = nullptr;
  llvm::Value* shape_field_ = nullptr;  // pointer to args->shape[0]
  llvm::Value* strides_ = nullptr;
  llvm::Value* output_strides_ = nullptr;  // tile and placed kernels only
  llvm::Value* inner_extent_ = nullptr;
  llvm::Value* multi_index_ = nullptr;  // alloca i64[kMaxLoopRank]: the current row's index
  std::vector<llvm::Value*> input_bases_;
  std::vector<llvm::Value*> inner_strides_;  // strided inputs only
  std::vector<llvm::Value*> output_bases_;
  std::vector<llvm::Value*> output_inner_strides_;  // placed kernels' strided outputs only
  // Gathered inputs only: the indexed axis's extent and stride (LoopArgs::gather_bounds).
  std::vector<llvm::Value*> gather_extents_, gather_strides_;
  llvm::Value* fault_ = nullptr;         // LoopArgs::fault, when the kernel gathers
  llvm::Value* piece_position_ = nullptr;  // the current row piece's flat position at its column 0

  // The row header's state: flat position, first column, each walker's offset at column 0.
  llvm::PHINode* position_ = nullptr;
  llvm::PHINode* column_ = nullptr;
  std::vector<llvm::PHINode*> row_offsets_;
  std::vector<RowInput> row_inputs_;
  std::vector<llvm::Value*> row_outputs_;
  // While the aligned vector loops of a streaming kernel are emitted: their stores are
  // non-temporal (LoopKernelSpec::streaming_stores).
  bool streaming_now_ = false;
  // Per philox run and chunk's block count, its round keys, made once per row piece (outside the
  // column loops, which LLVM does not hoist them out of on its own).
  std::map<std::pair<std::size_t, unsigned>, PhiloxRoundKeys> philox_keys_;
};

void LoopLowering::build(const std::string& symbol, int vector_bits) {
  begin_function(symbol, vector_bits);
  emit_prologue();
  llvm::BasicBlock* exit = block("exit");
  if (tile()) {
    emit_tile(exit);
  } else {
    llvm::BasicBlock* row_header = block("row");
    emit_decomposition(row_header, exit);
    emit_row(row_header, exit);
  }
  exit->moveAfter(&function_->back());  // laid out last: the loops fall through to each other
  builder_.SetInsertPoint(exit);
  if (plan_.streaming_stores) fence_streaming_stores(builder_, module_);
  builder_.CreateRetVoid();
}

// Loads everything that stays fixed for the call: the rank, base pointers, inner extent and the
// inner strides of strided inputs.
void LoopLowering::emit_prologue() {
  llvm::Type* pointer = builder_.getPtrTy();
  multi_index_ = builder_.CreateAlloca(llvm::ArrayType::get(index_type_, kMaxLoopRank), nullptr,
                                       "multi_index");
  rank_ = load_field(index_type_, offsetof(LoopArgs, rank), "rank");
  last_axis_ = builder_.CreateSub(rank_, index(1), "last_axis");
  shape_field_ =
      builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_, offsetof(LoopArgs, shape));
  llvm::Value* inputs = load_field(pointer, offsetof(LoopArgs, inputs), "inputs");
  strides_ = load_field(pointer, offsetof(LoopArgs, input_strides), "strides");
  llvm::Value* outputs = load_field(pointer, offsetof(LoopArgs, outputs), "outputs");
  if (walks_outputs())
    output_strides_ = load_field(pointer, offsetof(LoopArgs, output_strides), "output_strides");
  inner_extent_ = load_index(shape_field_, last_axis_, "inner_extent");
  const bool gathers = std::find(plan_.input_gathered.begin(), plan_.input_gathered.end(), true) !=
                       plan_.input_gathered.end();
  llvm::Value* bounds = gathers ? load_field(pointer, offsetof(LoopArgs, gather_bounds), "gather_bounds") : nullptr;
  if (gathers) fault_ = load_field(pointer, offsetof(LoopArgs, fault), "fault");
  for (std::size_t k = 0; k < plan_.input_dtypes.size(); ++k) {
    input_bases_.push_back(builder_.CreateAlignedLoad(
        pointer, builder_.CreateConstInBoundsGEP1_64(pointer, inputs, k), llvm::Align(8), "input"));
    inner_strides_.push_back(plan_.access[k] == InnerAccess::strided ? input_stride(k, last_axis_)
                                                                     : nullptr);
    const bool gathered = plan_.input_gathered[k];
    gather_extents_.push_back(gathered ? load_index(bounds, index(2 * static_cast<std::int64_t>(k)), "extent") : nullptr);
    gather_strides_.push_back(gathered ? load_index(bounds, index(2 * static_cast<std::int64_t>(k) + 1), "axis_stride")
                                       : nullptr);
  }
  for (std::size_t j = 0; j < plan_.outputs.size(); ++j) {
    output_bases_.push_back(builder_.CreateAlignedLoad(
        pointer, builder_.CreateConstInBoundsGEP1_64(pointer, outputs, j), llvm::Align(8),
        "output"));
    output_inner_strides_.push_back(output_strided(j) ? walker_stride(plan_.input_dtypes.size() + j, last_axis_)
                                                      : nullptr);
  }
}

// begin -> multi-index (stored in multi_index_) and each walker's offset at column 0 of begin's row,
// by a loop from the last axis to the first. Skips everything when begin >= end.
void LoopLowering::emit_decomposition(llvm::BasicBlock* row_header, llvm::BasicBlock* exit) {
  llvm::BasicBlock* entry = builder_.GetInsertBlock();
  llvm::BasicBlock* header = block("decompose");
  llvm::BasicBlock* done = block("decomposed");
  builder_.CreateCondBr(builder_.CreateICmpSLT(begin_, end_), header, exit);

  builder_.SetInsertPoint(header);
  llvm::PHINode* axis = builder_.CreatePHI(index_type_, 2, "axis");
  llvm::PHINode* remaining = builder_.CreatePHI(index_type_, 2, "remaining");
  axis->addIncoming(last_axis_, entry);
  remaining->addIncoming(begin_, entry);
  std::vector<llvm::PHINode*> offsets;
  for (std::size_t w = 0; w < walker_count(); ++w) {
    offsets.push_back(builder_.CreatePHI(index_type_, 2, "offset"));
    offsets.back()->addIncoming(index(0), entry);
  }
  llvm::Value* extent = load_index(shape_field_, axis, "extent");
  llvm::Value* digit = builder_.CreateURem(remaining, extent, "digit");
  builder_.CreateAlignedStore(digit, builder_.CreateGEP(index_type_, multi_index_, axis),
                              llvm::Align(8));
  // Offsets count the outer axes only; the inner axis is the column of the row piece.
  llvm::Value* outer_digit =
      builder_.CreateSelect(builder_.CreateICmpEQ(axis, last_axis_), index(0), digit);
  llvm::Value* next_axis = builder_.CreateSub(axis, index(1));
  for (std::size_t w = 0; w < offsets.size(); ++w) {
    llvm::Value* next =
        builder_.CreateAdd(offsets[w], builder_.CreateMul(outer_digit, walker_stride(w, axis)));
    offsets[w]->addIncoming(next, header);
  }
  axis->addIncoming(next_axis, header);
  remaining->addIncoming(builder_.CreateUDiv(remaining, extent), header);
  builder_.CreateCondBr(builder_.CreateICmpSGE(next_axis, index(0)), header, done);

  builder_.SetInsertPoint(done);
  llvm::Value* column = load_index(multi_index_, last_axis_, "first_column");

  builder_.SetInsertPoint(row_header);
  position_ = builder_.CreatePHI(index_type_, 2, "position");
  column_ = builder_.CreatePHI(index_type_, 2, "column");
  position_->addIncoming(begin_, done);
  column_->addIncoming(column, done);
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    row_offsets_.push_back(builder_.CreatePHI(index_type_, 2, "row_offset"));
    // The decomposition loop's last values: the header's phis updated once more.
    row_offsets_.back()->addIncoming(offsets[k]->getIncomingValueForBlock(header), done);
  }
  builder_.SetInsertPoint(done);
  builder_.CreateBr(row_header);
}

// One row piece: columns [column, min(inner_extent, column + end - position)).
void LoopLowering::emit_row(llvm::BasicBlock* row_header, llvm::BasicBlock* exit) {
  builder_.SetInsertPoint(row_header);
  llvm::Value* count = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, builder_.CreateSub(inner_extent_, column_),
      builder_.CreateSub(end_, position_), nullptr, "count");
  emit_row_piece(column_, position_, count);
  llvm::Value* next_position = builder_.CreateAdd(position_, count, "next_position");
  emit_odometer(row_header, exit, next_position);
}

// A tile kernel's whole nest: for each of the shape[0] rows, the walkers' row offsets advance by
// their axis-0 strides and the row's shape[1] columns are one piece. No decomposition and no
// odometer: a tile (a GEMM epilogue's region, a few rows of a few vectors) pays only a few
// instructions per row.
void LoopLowering::emit_tile(llvm::BasicBlock* exit) {
  llvm::BasicBlock* entry = builder_.GetInsertBlock();
  llvm::Value* rows = load_index(shape_field_, index(0), "rows");
  std::vector<llvm::Value*> row_strides;
  for (std::size_t w = 0; w < walker_count(); ++w) row_strides.push_back(walker_stride(w, index(0)));
  llvm::BasicBlock* row_header = block("tile_row");
  llvm::Value* empty = builder_.CreateOr(builder_.CreateICmpSLE(rows, index(0)),
                                         builder_.CreateICmpSLE(inner_extent_, index(0)));
  builder_.CreateCondBr(empty, exit, row_header);

  builder_.SetInsertPoint(row_header);
  llvm::PHINode* row = builder_.CreatePHI(index_type_, 2, "tile_row");
  row->addIncoming(index(0), entry);
  for (std::size_t w = 0; w < walker_count(); ++w) {
    row_offsets_.push_back(builder_.CreatePHI(index_type_, 2, "row_offset"));
    row_offsets_.back()->addIncoming(index(0), entry);
  }
  emit_tile_prefetch(row_strides);
  emit_row_piece(index(0), nullptr, inner_extent_);
  llvm::BasicBlock* row_end = builder_.GetInsertBlock();
  llvm::Value* next_row = builder_.CreateAdd(row, index(1), "next_row");
  row->addIncoming(next_row, row_end);
  for (std::size_t w = 0; w < walker_count(); ++w)
    row_offsets_[w]->addIncoming(builder_.CreateAdd(row_offsets_[w], row_strides[w]), row_end);
  builder_.CreateCondBr(builder_.CreateICmpSLT(next_row, rows), row_header, exit);
}

// Every line that each contiguous input's row kTilePrefetchRows ahead of the walkers' row touches
// (past the tile's last row too: a prefetch never faults), from the line of its first byte: a row
// that starts inside a line (a wrapped std::vector's, 16 bytes in) spans one line more than its
// size, and that last line, missed, stalled every row of an epilogue with a cheap body (the wide
// relu + residual layer, docs/epilogues.md). An input whose row stride is 0 (a bias broadcast
// down the rows) has one row, which the first row's reads keep in cache: it is not prefetched.
// Nor are the inputs the caller fetches (LoopKernelSpec::fetched_by_caller): their loops cost a
// product epilogue's row of 32 vectors about 130 instructions each for lines already in cache.
void LoopLowering::emit_tile_prefetch(const std::vector<llvm::Value*>& row_strides) {
  llvm::Function* prefetch =
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {builder_.getPtrTy()});
  for (std::size_t k = 0; k < input_bases_.size(); ++k) {
    if (plan_.access[k] != InnerAccess::contiguous || plan_.fetched_by_caller[k] || plan_.input_iotas[k])
      continue;
    const DType dtype = plan_.input_dtypes[k];
    llvm::Value* ahead = builder_.CreateAdd(
        row_offsets_[k], builder_.CreateMul(row_strides[k], index(kTilePrefetchRows)));
    llvm::Value* row = builder_.CreateGEP(element_type(dtype), input_bases_[k], ahead);
    llvm::Value* into_line =
        builder_.CreateAnd(builder_.CreatePtrToInt(row, index_type_), index(63), "into_line");
    llvm::Value* line = builder_.CreateGEP(builder_.getInt8Ty(), row, builder_.CreateNeg(into_line));
    llvm::Value* bytes = builder_.CreateAdd(
        builder_.CreateMul(inner_extent_, index(static_cast<std::int64_t>(itemsize(dtype)))), into_line);
    bytes = builder_.CreateSelect(builder_.CreateICmpEQ(row_strides[k], index(0)), index(0), bytes);
    emit_counted_loop(builder_, function_, "tile_prefetch", index(0), bytes, 64, [&](llvm::Value* byte) {
      // llvm.prefetch(address, read, locality 3 (L1), data)
      builder_.CreateCall(prefetch, {builder_.CreateGEP(builder_.getInt8Ty(), line, byte),
                                     builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});
    });
  }
}

// The inner loops over columns [0, count) of a row piece starting at `column` (flat `position`,
// unused by tile kernels), with the walkers at row_offsets_.
void LoopLowering::emit_row_piece(llvm::Value* column, llvm::Value* position, llvm::Value* count) {
  piece_position_ = position;
  row_inputs_.assign(input_bases_.size(), RowInput{});
  for (std::size_t k = 0; k < input_bases_.size(); ++k) {
    const DType dtype = plan_.input_dtypes[k];
    RowInput& row = row_inputs_[k];
    switch (plan_.access[k]) {
      case InnerAccess::contiguous:
        row.row_pointer = builder_.CreateGEP(element_type(dtype), input_bases_[k],
                                             builder_.CreateAdd(row_offsets_[k], column));
        break;
      case InnerAccess::strided:
        row.inner_stride = inner_strides_[k];
        row.row_pointer = builder_.CreateGEP(
            element_type(dtype), input_bases_[k],
            builder_.CreateAdd(row_offsets_[k], builder_.CreateMul(column, inner_strides_[k])));
        break;
      case InnerAccess::broadcast: {
        // Hoisted out of the inner loops: one load and one splat per row piece.
        llvm::Value* pointer =
            builder_.CreateGEP(element_type(dtype), input_bases_[k], row_offsets_[k]);
        // A gathered input is read at its indices only (emit_gather).
        if (plan_.input_gathered[k]) {
          row.row_pointer = pointer;
          break;
        }
        row.broadcast_scalar = LeafReader(builder_, module_, 1).read(plan_.source(k), pointer);
        row.broadcast_vector = builder_.CreateVectorSplat(shape_.lanes, row.broadcast_scalar);
        break;
      }
    }
  }
  philox_keys_.clear();
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n) {
    if (!is_philox_run(plan_, plan_.nodes[n])) continue;
    for (unsigned chunk : {shape_.lanes, shape_.lanes * shape_.unroll}) {
      if (chunk % 8 == 0 && !philox_keys_.count({n, chunk / 4}))
        philox_keys_.emplace(std::make_pair(n, chunk / 4), emit_philox_round_keys(builder_, philox_key(plan_.nodes[n]), chunk / 4));
    }
  }
  row_outputs_.clear();
  for (std::size_t j = 0; j < plan_.outputs.size(); ++j) {
    const DType dtype = plan_.nodes[plan_.outputs[j]].dtype;
    // Flat kernels write contiguously at the flat position; tile and placed kernels at each
    // output's own row offset (inner stride 1) and the piece's first column.
    llvm::Value* inner = output_strided(j) ? builder_.CreateMul(column, output_inner_strides_[j]) : column;
    llvm::Value* offset = walks_outputs() ? builder_.CreateAdd(row_offsets_[input_bases_.size() + j], inner)
                                          : position;
    row_outputs_.push_back(builder_.CreateGEP(element_type(dtype), output_bases_[j], offset));
  }

  llvm::Value* piece_column = index(0);
  if (plan_.streaming_stores) {
    // Scalar iterations up to an element index that is a multiple of the lane count: from there on
    // every vector store of every output is aligned to its size (the outputs are 64-byte aligned
    // at index 0, and a vector of the widest type is at most 64 bytes). A flat kernel's index is
    // its position; a tile or placed kernel's comes from output 0's address
    // (LoopKernelSpec::streaming_stores).
    llvm::Value* element = position;
    if (walks_outputs()) {
      const DType dtype = plan_.nodes[plan_.outputs[0]].dtype;
      element = builder_.CreateUDiv(builder_.CreatePtrToInt(row_outputs_[0], index_type_),
                                    index(static_cast<std::int64_t>(itemsize(dtype))), "output_element");
    }
    llvm::Value* to_boundary =
        builder_.CreateAnd(builder_.CreateNeg(element), index(static_cast<std::int64_t>(shape_.lanes) - 1));
    llvm::Value* peel = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, to_boundary, count, nullptr, "peel");
    piece_column = emit_inner_loop("peel", 1, 1, piece_column, peel);
    streaming_now_ = true;
  }
  if (shape_.unroll > 1)
    piece_column = emit_inner_loop("unrolled", shape_.lanes, shape_.unroll, piece_column, count);
  piece_column = emit_inner_loop("vector", shape_.lanes, 1, piece_column, count);
  streaming_now_ = false;
  emit_inner_loop("tail", 1, 1, piece_column, count);
}

// After a row piece: stop at `end`, else step the multi-index to the next row (carrying through
// outer axes that wrap) and add each walker's strides to its row offset.
void LoopLowering::emit_odometer(llvm::BasicBlock* row_header, llvm::BasicBlock* exit,
                                 llvm::Value* next_position) {
  llvm::BasicBlock* row_end = builder_.GetInsertBlock();
  llvm::BasicBlock* header = block("advance");
  llvm::BasicBlock* step = block("advance_axis");
  llvm::BasicBlock* carried = block("advanced");
  llvm::BasicBlock* wrap = block("wrap_axis");
  llvm::Value* last_outer_axis = builder_.CreateSub(last_axis_, index(1), "last_outer_axis");
  builder_.CreateCondBr(builder_.CreateICmpSLT(next_position, end_), header, exit);

  builder_.SetInsertPoint(header);
  llvm::PHINode* axis = builder_.CreatePHI(index_type_, 2, "axis");
  axis->addIncoming(last_outer_axis, row_end);
  std::vector<llvm::PHINode*> offsets;
  for (std::size_t k = 0; k < row_offsets_.size(); ++k) {
    offsets.push_back(builder_.CreatePHI(index_type_, 2, "offset"));
    offsets.back()->addIncoming(row_offsets_[k], row_end);
  }
  // Unreachable for a valid range (a position before `end` lies in some row); kept so that no
  // argument makes the kernel index below the multi-index.
  builder_.CreateCondBr(builder_.CreateICmpSGE(axis, index(0)), step, exit);

  builder_.SetInsertPoint(step);
  llvm::Value* slot = builder_.CreateGEP(index_type_, multi_index_, axis);
  llvm::Value* digit =
      builder_.CreateAdd(builder_.CreateAlignedLoad(index_type_, slot, llvm::Align(8)), index(1));
  llvm::Value* extent = load_index(shape_field_, axis, "extent");
  std::vector<llvm::Value*> strides, stepped;
  for (std::size_t w = 0; w < offsets.size(); ++w) {
    strides.push_back(walker_stride(w, axis));
    stepped.push_back(builder_.CreateAdd(offsets[w], strides.back()));
  }
  builder_.CreateCondBr(builder_.CreateICmpSLT(digit, extent), carried, wrap);

  builder_.SetInsertPoint(carried);
  builder_.CreateAlignedStore(digit, slot, llvm::Align(8));
  builder_.CreateBr(row_header);
  position_->addIncoming(next_position, carried);
  column_->addIncoming(index(0), carried);
  for (std::size_t k = 0; k < row_offsets_.size(); ++k)
    row_offsets_[k]->addIncoming(stepped[k], carried);

  builder_.SetInsertPoint(wrap);
  builder_.CreateAlignedStore(index(0), slot, llvm::Align(8));
  axis->addIncoming(builder_.CreateSub(axis, index(1)), wrap);
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    offsets[k]->addIncoming(builder_.CreateSub(stepped[k], builder_.CreateMul(extent, strides[k])),
                            wrap);
  }
  builder_.CreateBr(header);
}

llvm::Value* LoopLowering::emit_inner_loop(const char* name, unsigned lanes, unsigned unroll,
                                           llvm::Value* start, llvm::Value* count) {
  llvm::BasicBlock* before = builder_.GetInsertBlock();
  llvm::BasicBlock* header = block(name);
  llvm::BasicBlock* body = block(name);
  llvm::BasicBlock* after = block(name);
  builder_.CreateBr(header);

  builder_.SetInsertPoint(header);
  llvm::PHINode* column = builder_.CreatePHI(index_type_, 2, "j");
  column->addIncoming(start, before);
  const auto step = static_cast<std::int64_t>(lanes) * unroll;
  llvm::Value* fits = builder_.CreateICmpSLE(builder_.CreateAdd(column, index(step)), count);
  builder_.CreateCondBr(fits, body, after);

  builder_.SetInsertPoint(body);
  if (shape_.interleaved && unroll > 1) {
    emit_chunk(lanes * unroll, column);
  } else {
    for (unsigned u = 0; u < unroll; ++u)
      emit_chunk(lanes, builder_.CreateAdd(column, index(static_cast<std::int64_t>(u) * lanes)));
  }
  column->addIncoming(builder_.CreateAdd(column, index(step)), builder_.GetInsertBlock());
  builder_.CreateBr(header);

  builder_.SetInsertPoint(after);
  return column;
}

llvm::Value* LoopLowering::load_input(std::size_t k, unsigned lanes, llvm::Value* column) {
  const DType dtype = plan_.input_dtypes[k];
  const RowInput& row = row_inputs_[k];
  LeafReader reader(builder_, module_, lanes);
  llvm::Type* element = element_type(dtype);
  switch (plan_.access[k]) {
    case InnerAccess::broadcast:
      if (lanes == 1) return row.broadcast_scalar;
      return lanes == shape_.lanes ? row.broadcast_vector
                                   : builder_.CreateVectorSplat(lanes, row.broadcast_scalar);
    case InnerAccess::contiguous:
      return reader.read(plan_.source(k), builder_.CreateGEP(element, row.row_pointer, column));
    case InnerAccess::strided:
      return reader.read_strided(plan_.source(k),
                                 builder_.CreateGEP(element, row.row_pointer, builder_.CreateMul(column, row.inner_stride)),
                                 row.inner_stride);
  }
  TJ_INTERNAL_CHECK(false) << "loop kernel: unknown access class";
  return nullptr;  // not reached: the check throws
}

llvm::Value* LoopLowering::emit_gather(const LoopPlanNode& node, unsigned lanes, llvm::Value* column,
                                       llvm::Value* indices) {
  const auto k = static_cast<std::size_t>(plan_.nodes[static_cast<std::size_t>(node.operands[0])].input_index);
  const LoopPlanNode& index_node = plan_.nodes[static_cast<std::size_t>(node.operands[1])];
  // An index the same in every lane (a constant, a broadcast input) is checked once and reads
  // whole vectors of the gathered row.
  const bool uniform = index_node.op == ir::Op::constant ||
                       (index_node.op == ir::Op::input &&
                        plan_.access[static_cast<std::size_t>(index_node.input_index)] == InnerAccess::broadcast);
  const unsigned check_lanes = uniform ? 1 : lanes;
  llvm::Value* value = uniform && lanes > 1 ? builder_.CreateExtractElement(indices, std::uint64_t{0}) : indices;
  llvm::Type* wide = check_lanes == 1 ? index_type_ : llvm::FixedVectorType::get(index_type_, check_lanes);
  value = builder_.CreateSExtOrBitCast(value, wide, "index");
  auto splat = [&](llvm::Value* scalar) {
    return check_lanes == 1 ? scalar : builder_.CreateVectorSplat(check_lanes, scalar);
  };
  const ResolvedIndex resolved = resolve_index(builder_, value, gather_extents_[k]);
  emit_index_fault(builder_, fault_, static_cast<std::int64_t>(k), resolved, value,
                   builder_.CreateAdd(piece_position_, column));
  llvm::Value* shift = builder_.CreateMul(resolved.element, splat(gather_strides_[k]), "shift");

  const RowInput& row = row_inputs_[k];
  const LeafSource source = plan_.source(k);
  llvm::Type* element_in_memory = element_type(source.dtype);
  LeafReader reader(builder_, module_, lanes);
  // Lane l reads element base + l * step (+ its shift) of the input.
  llvm::Value* base = row.row_pointer;
  llvm::Value* step = index(0);
  switch (plan_.access[k]) {
    case InnerAccess::contiguous:
      base = builder_.CreateGEP(element_in_memory, row.row_pointer, column);
      step = index(1);
      break;
    case InnerAccess::strided:
      base = builder_.CreateGEP(element_in_memory, row.row_pointer, builder_.CreateMul(column, row.inner_stride));
      step = row.inner_stride;
      break;
    case InnerAccess::broadcast: break;
  }
  if (uniform) {
    llvm::Value* at = builder_.CreateGEP(element_in_memory, base, shift);
    switch (plan_.access[k]) {
      case InnerAccess::contiguous: return reader.read(source, at);
      case InnerAccess::strided: return reader.read_strided(source, at, step);
      case InnerAccess::broadcast: {
        llvm::Value* scalar = LeafReader(builder_, module_, 1).read(source, at);
        return lanes == 1 ? scalar : builder_.CreateVectorSplat(lanes, scalar);
      }
    }
  }
  if (lanes == 1) return reader.read(source, builder_.CreateGEP(element_in_memory, base, shift));
  // One scalar load per lane, as strided inputs are read (leaf_values.cpp says why).
  llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(element_in_memory, lanes));
  for (unsigned lane = 0; lane < lanes; ++lane) {
    llvm::Value* offset = builder_.CreateAdd(builder_.CreateMul(index(lane), step), builder_.CreateExtractElement(shift, lane));
    llvm::Value* loaded = builder_.CreateAlignedLoad(element_in_memory, builder_.CreateGEP(element_in_memory, base, offset),
                                                     element_align(source.dtype));
    vector = builder_.CreateInsertElement(vector, loaded, lane);
  }
  return ElementwiseEmitter(builder_, module_, lanes).from_memory(source.dtype, vector);
}

llvm::Value* LoopLowering::philox_key(const LoopPlanNode& node) {
  const LoopPlanNode& key = plan_.nodes[static_cast<std::size_t>(node.operands[0])];
  if (key.op == ir::Op::constant) return ElementwiseEmitter(builder_, module_, 1).constant(DType::i64, key.constant);
  return row_inputs_[static_cast<std::size_t>(key.input_index)].broadcast_scalar;
}

llvm::Value* LoopLowering::emit_philox_chunk(std::size_t n, unsigned lanes, llvm::Value* column) {
  const LoopPlanNode& node = plan_.nodes[n];
  const auto k = static_cast<std::size_t>(plan_.nodes[static_cast<std::size_t>(node.operands[1])].input_index);
  llvm::Value* key = philox_key(node);
  llvm::Value* first = iota_offset(builder_, DType::i64,
                                   builder_.CreateGEP(element_type(DType::i64), row_inputs_[k].row_pointer, column));
  llvm::BasicBlock* run = block("philox_run");
  llvm::BasicBlock* per_lane = block("philox_per_lane");
  llvm::BasicBlock* joined = block("philox_joined");
  builder_.CreateCondBr(builder_.CreateICmpEQ(builder_.CreateAnd(first, index(3)), index(0)), run, per_lane);
  builder_.SetInsertPoint(run);
  llvm::Value* blocks = emit_philox_run(builder_, philox_keys_.at({n, lanes / 4}), first, lanes);
  builder_.CreateBr(joined);
  builder_.SetInsertPoint(per_lane);
  std::vector<llvm::Constant*> lane_numbers;
  for (unsigned lane = 0; lane < lanes; ++lane) lane_numbers.push_back(builder_.getInt64(lane));
  llvm::Value* positions = builder_.CreateAdd(builder_.CreateVectorSplat(lanes, first), llvm::ConstantVector::get(lane_numbers));
  llvm::Value* lanes_apart = emit_philox_word(builder_, builder_.CreateVectorSplat(lanes, key), positions);
  builder_.CreateBr(joined);
  builder_.SetInsertPoint(joined);
  llvm::PHINode* words = builder_.CreatePHI(blocks->getType(), 2, "philox");
  words->addIncoming(blocks, run);
  words->addIncoming(lanes_apart, per_lane);
  return words;
}

void LoopLowering::emit_chunk(unsigned lanes, llvm::Value* column) {
  ElementwiseEmitter emitter(builder_, module_, lanes);
  std::vector<llvm::Value*> values(plan_.nodes.size(), nullptr);
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n) {
    const LoopPlanNode& node = plan_.nodes[n];
    if (lanes % 8 == 0 && is_philox_run(plan_, node)) {
      values[n] = emit_philox_chunk(n, lanes, column);
    } else if (node.op == ir::Op::input) {
      const auto k = static_cast<std::size_t>(node.input_index);
      // A gathered input has no value of its own here: its gathers read it at their indices.
      if (!plan_.input_gathered[k]) values[n] = load_input(k, lanes, column);
    } else if (node.op == ir::Op::gather) {
      values[n] = emit_gather(node, lanes, column, values[static_cast<std::size_t>(node.operands[1])]);
    } else if (node.op == ir::Op::constant) {
      values[n] = emitter.constant(node.dtype, node.constant);
    } else {
      std::vector<llvm::Value*> operands;
      for (int operand : node.operands) operands.push_back(values[operand]);
      const DType operand_dtype = plan_.nodes[node.operands.back()].dtype;
      values[n] = emitter.emit(node.op, node.dtype, operand_dtype, operands);
    }
  }
  for (std::size_t j = 0; j < plan_.outputs.size(); ++j) {
    const LoopPlanNode& output = plan_.nodes[plan_.outputs[j]];
    llvm::Value* stored = emitter.to_memory(output.dtype, values[plan_.outputs[j]]);
    if (output_strided(j)) {
      // One scalar store per lane, at the output's inner stride (a stack along the last axis).
      llvm::Value* stride = output_inner_strides_[j];
      llvm::Value* first = builder_.CreateGEP(element_type(output.dtype), row_outputs_[j], builder_.CreateMul(column, stride));
      for (unsigned lane = 0; lane < lanes; ++lane) {
        llvm::Value* element = lanes == 1 ? stored : builder_.CreateExtractElement(stored, lane);
        llvm::Value* at = builder_.CreateGEP(element_type(output.dtype), first, builder_.CreateMul(index(lane), stride));
        builder_.CreateAlignedStore(element, at, element_align(output.dtype));
      }
      continue;
    }
    llvm::Value* pointer = builder_.CreateGEP(element_type(output.dtype), row_outputs_[j], column);
    // One register's bytes: the alignment the peel gives (an interleaved value spans several).
    const std::uint64_t vector_bytes =
        std::uint64_t{std::min(lanes, shape_.lanes)} * itemsize(output.dtype);
    // Vectors under 16 bytes (bool outputs of narrow kernels) have no non-temporal vector store.
    if (streaming_now_ && vector_bytes >= 16) store_streaming(builder_, stored, pointer, vector_bytes);
    else builder_.CreateAlignedStore(stored, pointer, element_align(output.dtype));
  }
}

}  // namespace

LoopShape choose_loop_shape(const LoopPlan& plan, int vector_bits) {
  // The key and position of a philox run are read as scalars (the run's blocks take their own
  // lanes): their i64 does not halve the kernel's lanes when nothing else reads them.
  // Likewise a gather's broadcast index, read once per row piece, and its gathered input, which
  // has no value of its own (the gather's dtype is its).
  std::vector<int> readers(plan.nodes.size(), 0), run_reads(plan.nodes.size(), 0);
  for (const auto& node : plan.nodes)
    for (std::size_t k = 0; k < node.operands.size(); ++k) {
      const auto operand = static_cast<std::size_t>(node.operands[k]);
      ++readers[operand];
      const LoopPlanNode& read = plan.nodes[operand];
      const bool scalar_index =
          node.op == ir::Op::gather &&
          (k == 0 || read.op == ir::Op::constant ||
           (read.op == ir::Op::input && plan.access[static_cast<std::size_t>(read.input_index)] == InnerAccess::broadcast));
      if (is_philox_run(plan, node) || scalar_index) ++run_reads[operand];
    }
  for (int output : plan.outputs) ++readers[static_cast<std::size_t>(output)];
  std::size_t widest = 1;
  bool long_body = false;
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const LoopPlanNode& node = plan.nodes[n];
    if (readers[n] == 0 || readers[n] > run_reads[n]) widest = std::max(widest, itemsize(node.dtype));
    if (node.operands.empty()) continue;
    const DType operand_dtype = plan.nodes[node.operands.back()].dtype;
    // Philox's ten rounds are such a body too.
    if (is_per_lane_op(node.op, operand_dtype) || vector_math::has_vector_math(node.op, operand_dtype) ||
        node.op == ir::Op::philox)
      long_body = true;
  }
  LoopShape shape;
  shape.lanes = static_cast<unsigned>(static_cast<std::size_t>(vector_bits) / 8 / widest);
  shape.unroll = 4;
  shape.interleaved = long_body;
  return shape;
}

void build_loop_kernel(llvm::Module& module, const LoopPlan& plan, const std::string& symbol,
                       int vector_bits) {
  LoopLowering(module, plan, choose_loop_shape(plan, vector_bits)).build(symbol, vector_bits);
}

}  // namespace tensorjit::codegen
