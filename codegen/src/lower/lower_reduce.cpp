// The LLVM IR of a fused reduction kernel (reduce_kernel.hpp), in the strict order of
// ir/reduction_order.hpp.
//
// Shape of the code, for each output o in [begin, end):
//   kept offsets   o is split into its kept index; each input's offset at that index
//   blocks         for each block: the lanes (an alloca of V accumulators, V fixed by the
//                  accumulator's size, not by the vector width) start neutral; the block's
//                  elements are walked row by row of the innermost reduced axis; a row piece is a
//                  scalar head up to the next lane-0 element, V-lane vectors (the lanes held in
//                  registers), a tail of native vectors (the last one masked to the row); then the
//                  tree. Partials are combined left to right.
//   consumer       the result (identity when there are no elements) runs through the consumer
//                  expression, one element per output, and is stored.
// Element i of a block always lands in lane i mod V, whatever the row boundaries, so vector and
// scalar paths give the interpreter's bits. The vector is V lanes at every width: LLVM splits it
// into the target's registers (four zmm for 64 f32 lanes), which also gives the loop enough
// independent chains to run at memory speed.
#include "codegen/src/lower/reduce_lowering.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>

#include "codegen/src/jit/module_builder.hpp"

namespace tensorjit::codegen {
namespace reduce_lowering {

void ReduceLowering::build(const std::string& symbol, int vector_bits) {
  begin_function(symbol, vector_bits);
  native_lanes_ = std::clamp(static_cast<unsigned>(vector_bits) / (8 * static_cast<unsigned>(itemsize(accumulator()))),
                             1u, lanes_);
  tail_maskable_ = native_lanes_ > 1 && std::none_of(plan_.producer.access.begin(), plan_.producer.access.end(),
                                                     [](InnerAccess a) { return a == InnerAccess::strided; });
  llvm::Value* begin = begin_;
  llvm::Value* end = end_;
  emit_prologue();
  const bool arg = is_arg_reduction(plan_.op);
  // Outputs one by one, or (vectorize_outputs, mode 0) by whole tiles of V along the kept axis.
  llvm::BasicBlock* entry = builder_.GetInsertBlock();
  llvm::BasicBlock* header = block("output");
  llvm::BasicBlock* single = block("single_output");
  llvm::BasicBlock* exit = block("exit");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* output = builder_.CreatePHI(index_type_, 3, "o");
  output->addIncoming(begin, entry);
  if (plan_.vectorize_outputs) {
    llvm::BasicBlock* choose = block("choose_strip");
    builder_.CreateCondBr(builder_.CreateICmpSLT(output, end), choose, exit);
    builder_.SetInsertPoint(choose);
    llvm::Value* column = builder_.CreateURem(output, kept_inner_extent_);
    // The widest that fits: a wide strip walked lane by lane (one reduced axis, not argmax or
    // argmin), a strip of tiles, one tile, else one output.
    std::vector<unsigned> strips = {kStripTiles, 1u};
    if (!arg) strips.insert(strips.begin(), {kWideStripTiles, kWideStripTiles / 2});
    for (unsigned strip : strips) {
      const bool lane_major = strip > kStripTiles;
      const auto width = static_cast<std::int64_t>(strip * lanes_);
      llvm::BasicBlock* tile = block("output_tile");
      llvm::BasicBlock* narrower = strip == 1 ? single : block("choose_tile");
      llvm::Value* fits = builder_.CreateAnd(
          builder_.CreateICmpEQ(mode_, index(0)),
          builder_.CreateAnd(
              builder_.CreateICmpSLE(builder_.CreateAdd(column, index(width)), kept_inner_extent_),
              builder_.CreateICmpSLE(builder_.CreateAdd(output, index(width)), end)));
      if (lane_major)
        fits = builder_.CreateAnd(fits, builder_.CreateICmpEQ(reduced_rank_, index(1)));
      builder_.CreateCondBr(fits, tile, narrower);
      builder_.SetInsertPoint(tile);
      if (arg)
        emit_arg_tile(output, strip);
      else
        emit_output_tile(output, strip, lane_major);
      output->addIncoming(builder_.CreateAdd(output, index(width)), builder_.GetInsertBlock());
      builder_.CreateBr(header);
      if (strip != 1) builder_.SetInsertPoint(narrower);
    }
  } else {
    builder_.CreateCondBr(builder_.CreateICmpSLT(output, end), single, exit);
  }
  builder_.SetInsertPoint(single);
  if (arg)
    emit_arg_output(output);
  else
    emit_single_output(output);
  output->addIncoming(builder_.CreateAdd(output, index(1)), builder_.GetInsertBlock());
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
  builder_.CreateRetVoid();
}

ReduceLowering::BlockWalk ReduceLowering::emit_block_walk(llvm::Value* output) {
  llvm::Value* finishing = builder_.CreateICmpEQ(mode_, index(2));
  llvm::Value* writing = builder_.CreateICmpEQ(mode_, index(1));
  llvm::Value* first_block = builder_.CreateSelect(
      writing, load_field(index_type_, offsetof(ReduceArgs, block_begin), "block_begin"), index(0));
  llvm::Value* last_block = builder_.CreateSelect(
      writing, load_field(index_type_, offsetof(ReduceArgs, block_end), "block_end"), block_count_);
  return {finishing, writing, first_block, last_block, builder_.CreateMul(output, block_count_)};
}

// One output in the default walk; in mode 1 only its partials, in mode 2 only its finish.
void ReduceLowering::emit_single_output(llvm::Value* output) {
  const std::vector<llvm::Value*> kept_offsets = emit_kept_offsets(output);
  const auto [finishing, writing, first_block, last_block, partial_row] = emit_block_walk(output);
  llvm::Type* partial_type = memory_type(accumulator());

  llvm::BasicBlock* reduce_blocks = block("reduce_blocks");
  llvm::BasicBlock* read_partials = block("read_partials");
  llvm::BasicBlock* finish = block("finish");
  llvm::BasicBlock* next = block("next_output");
  builder_.CreateCondBr(finishing, read_partials, reduce_blocks);

  // Blocks reduced here; in mode 1 each partial is stored, in mode 0 combined in order.
  builder_.SetInsertPoint(reduce_blocks);
  llvm::AllocaInst* total_memory = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    total_memory =
        entry_builder.CreateAlloca(register_type(context_, accumulator(), 1), nullptr, "total");
  }
  builder_.CreateStore(constant(1, neutral_value(plan_.op, accumulator())), total_memory);
  emit_counted_loop("block", first_block, last_block, 1, [&](llvm::Value* block_index) {
    llvm::Value* partial = emit_block(block_index, kept_offsets, false);
    ElementwiseEmitter scalar(builder_, module_, 1);
    llvm::Value* slot =
        builder_.CreateGEP(partial_type, partials_, builder_.CreateAdd(partial_row, block_index));
    llvm::BasicBlock* store = block("store_partial");
    llvm::BasicBlock* add = block("combine_partial");
    llvm::BasicBlock* done = block("block_done");
    builder_.CreateCondBr(writing, store, add);
    builder_.SetInsertPoint(store);
    builder_.CreateAlignedStore(scalar.to_memory(accumulator(), partial), slot,
                                align(accumulator()));
    builder_.CreateBr(done);
    builder_.SetInsertPoint(add);
    llvm::Value* total =
        builder_.CreateLoad(register_type(context_, accumulator(), 1), total_memory);
    builder_.CreateStore(combine(1, total, partial), total_memory);
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
  });
  builder_.CreateCondBr(writing, next, finish);

  // Mode 2: the partials that mode-1 calls stored, combined in order.
  builder_.SetInsertPoint(read_partials);
  builder_.CreateStore(constant(1, neutral_value(plan_.op, accumulator())), total_memory);
  emit_counted_loop("partial", index(0), block_count_, 1, [&](llvm::Value* block_index) {
    ElementwiseEmitter scalar(builder_, module_, 1);
    llvm::Value* slot =
        builder_.CreateGEP(partial_type, partials_, builder_.CreateAdd(partial_row, block_index));
    llvm::Value* partial = scalar.from_memory(
        accumulator(), builder_.CreateAlignedLoad(partial_type, slot, align(accumulator())));
    llvm::Value* total =
        builder_.CreateLoad(register_type(context_, accumulator(), 1), total_memory);
    builder_.CreateStore(combine(1, total, partial), total_memory);
  });
  builder_.CreateBr(finish);

  builder_.SetInsertPoint(finish);
  llvm::Value* total = builder_.CreateLoad(register_type(context_, accumulator(), 1), total_memory);
  llvm::Value* result =
      builder_.CreateSelect(builder_.CreateICmpEQ(reduced_count_, index(0)),
                            constant(1, identity_value(plan_.op, accumulator())), total, "result");
  emit_consumer(output, result, kept_offsets);
  builder_.CreateBr(next);
  builder_.SetInsertPoint(next);
}

void ReduceLowering::emit_prologue() {
  llvm::Type* pointer = builder_.getPtrTy();
  lanes_memory_ = builder_.CreateAlloca(llvm::ArrayType::get(memory_type(accumulator()), lanes_),
                                        nullptr, "lanes");
  llvm::cast<llvm::AllocaInst>(lanes_memory_)->setAlignment(llvm::Align(64));
  reduced_index_ = builder_.CreateAlloca(llvm::ArrayType::get(index_type_, kMaxLoopRank), nullptr,
                                         "reduced_index");
  kept_rank_ = load_field(index_type_, offsetof(ReduceArgs, kept_rank), "kept_rank");
  kept_shape_ = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_,
                                                    offsetof(ReduceArgs, kept_shape));
  reduced_rank_ = load_field(index_type_, offsetof(ReduceArgs, reduced_rank), "reduced_rank");
  reduced_shape_ = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_,
                                                       offsetof(ReduceArgs, reduced_shape));
  reduced_count_ = load_field(index_type_, offsetof(ReduceArgs, reduced_count), "reduced_count");
  block_count_ = load_field(index_type_, offsetof(ReduceArgs, block_count), "block_count");
  mode_ = load_field(index_type_, offsetof(ReduceArgs, mode), "mode");
  partials_ = load_field(pointer, offsetof(ReduceArgs, partials), "partials");
  llvm::Value* inputs = load_field(pointer, offsetof(ReduceArgs, inputs), "inputs");
  strides_ = load_field(pointer, offsetof(ReduceArgs, input_strides), "strides");
  llvm::Value* outputs = load_field(pointer, offsetof(ReduceArgs, outputs), "outputs");
  llvm::Value* last_reduced_axis = builder_.CreateSub(reduced_rank_, index(1));
  inner_extent_ = load_index(reduced_shape_, last_reduced_axis, "inner_extent");
  for (std::size_t k = 0; k < input_count(); ++k) {
    input_bases_.push_back(builder_.CreateAlignedLoad(
        pointer, builder_.CreateConstInBoundsGEP1_64(pointer, inputs, k), llvm::Align(8), "input"));
    const bool strided = k < producer_count() && plan_.producer.access[k] == InnerAccess::strided;
    inner_strides_.push_back(strided ? stride(k, kMaxLoopRank, last_reduced_axis) : nullptr);
  }
  if (plan_.vectorize_outputs) {
    tile_lanes_memory_ = builder_.CreateAlloca(
        llvm::ArrayType::get(memory_type(accumulator()), lanes_ * kStripTiles * lanes_), nullptr,
        "tile_lanes");
    llvm::cast<llvm::AllocaInst>(tile_lanes_memory_)->setAlignment(llvm::Align(64));
    llvm::Value* last_kept_axis = builder_.CreateSub(kept_rank_, index(1));
    kept_inner_extent_ = load_index(kept_shape_, last_kept_axis, "kept_inner_extent");
    for (std::size_t k = 0; k < producer_count(); ++k) {
      reduced_inner_strides_.push_back(stride(k, kMaxLoopRank, last_reduced_axis));
      kept_inner_strides_.push_back(stride(k, 0, last_kept_axis));
    }
  }
  for (std::size_t j = 0; j < plan_.consumer.outputs.size(); ++j) {
    output_bases_.push_back(builder_.CreateAlignedLoad(
        pointer, builder_.CreateConstInBoundsGEP1_64(pointer, outputs, j), llvm::Align(8),
        "output"));
  }
}

// The offset of every input (producer and consumer) at output `output`'s kept index: the digits
// of `output` from the last kept axis to the first, times each input's kept strides.
std::vector<llvm::Value*> ReduceLowering::emit_kept_offsets(llvm::Value* output) {
  std::vector<llvm::AllocaInst*> offsets;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    for (std::size_t k = 0; k < input_count(); ++k)
      offsets.push_back(entry_builder.CreateAlloca(index_type_, nullptr, "kept_offset"));
  }
  llvm::AllocaInst* remaining = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    remaining = entry_builder.CreateAlloca(index_type_, nullptr, "remaining");
  }
  for (auto* offset : offsets) builder_.CreateStore(index(0), offset);
  builder_.CreateStore(output, remaining);
  llvm::Value* last_axis = builder_.CreateSub(kept_rank_, index(1));
  // Axes last to first: axis = last_axis - i.
  emit_counted_loop("kept_axis", index(0), kept_rank_, 1, [&](llvm::Value* i) {
    llvm::Value* axis = builder_.CreateSub(last_axis, i);
    llvm::Value* extent = load_index(kept_shape_, axis, "extent");
    llvm::Value* rest = builder_.CreateLoad(index_type_, remaining);
    llvm::Value* digit = builder_.CreateURem(rest, extent, "digit");
    builder_.CreateStore(builder_.CreateUDiv(rest, extent), remaining);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      llvm::Value* old = builder_.CreateLoad(index_type_, offsets[k]);
      builder_.CreateStore(builder_.CreateAdd(old, builder_.CreateMul(digit, stride(k, 0, axis))),
                           offsets[k]);
    }
  });
  std::vector<llvm::Value*> values;
  for (auto* offset : offsets)
    values.push_back(builder_.CreateLoad(index_type_, offset, "kept_offset"));
  return values;
}

// One block's partial: its elements [start, min(n, start + B)) walked row piece by row piece.
llvm::Value* ReduceLowering::emit_block(llvm::Value* block_index,
                                        const std::vector<llvm::Value*>& kept_offsets, bool tile) {
  llvm::Value* neutral = constant(lanes_, neutral_value(plan_.op, accumulator()));
  if (tile) {
    emit_counted_loop("tile_lane", index(0), index(lanes_), 1, [&](llvm::Value* lane) {
      emit_counted_loop("tile_sub", index(0), index(strip_), 1,
                        [&](llvm::Value* sub) { store_tile_lane(lane, sub, neutral); });
    });
  } else {
    store_lanes(neutral);
  }
  llvm::Value* start = builder_.CreateMul(block_index, index(ir::kReductionBlock), "block_start");
  llvm::Value* stop = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, reduced_count_, builder_.CreateAdd(start, index(ir::kReductionBlock)));

  // start -> reduced multi-index (kept in reduced_index_) and each producer input's offset at
  // column 0 of that row; the column is the last digit.
  std::vector<llvm::AllocaInst*> offsets;
  llvm::AllocaInst* remaining = nullptr;
  llvm::AllocaInst* position_memory = nullptr;
  llvm::AllocaInst* column_memory = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    for (std::size_t k = 0; k < producer_count(); ++k)
      offsets.push_back(entry_builder.CreateAlloca(index_type_, nullptr, "row_offset"));
    remaining = entry_builder.CreateAlloca(index_type_, nullptr, "remaining");
    position_memory = entry_builder.CreateAlloca(index_type_, nullptr, "position");
    column_memory = entry_builder.CreateAlloca(index_type_, nullptr, "column");
  }
  for (std::size_t k = 0; k < offsets.size(); ++k)
    builder_.CreateStore(kept_offsets[k], offsets[k]);
  builder_.CreateStore(start, remaining);
  llvm::Value* last_axis = builder_.CreateSub(reduced_rank_, index(1));
  emit_counted_loop("reduced_axis", index(0), reduced_rank_, 1, [&](llvm::Value* i) {
    llvm::Value* axis = builder_.CreateSub(last_axis, i);
    llvm::Value* extent = load_index(reduced_shape_, axis, "extent");
    llvm::Value* rest = builder_.CreateLoad(index_type_, remaining);
    llvm::Value* digit = builder_.CreateURem(rest, extent, "digit");
    builder_.CreateStore(builder_.CreateUDiv(rest, extent), remaining);
    builder_.CreateAlignedStore(digit, builder_.CreateGEP(index_type_, reduced_index_, axis),
                                llvm::Align(8));
    llvm::Value* outer_digit =
        builder_.CreateSelect(builder_.CreateICmpEQ(i, index(0)), index(0), digit);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      llvm::Value* old = builder_.CreateLoad(index_type_, offsets[k]);
      builder_.CreateStore(
          builder_.CreateAdd(old, builder_.CreateMul(outer_digit, stride(k, kMaxLoopRank, axis))),
          offsets[k]);
    }
  });
  builder_.CreateStore(start, position_memory);
  builder_.CreateStore(load_index(reduced_index_, last_axis, "first_column"), column_memory);

  llvm::BasicBlock* row = block("row");
  llvm::BasicBlock* advance = block("advance");
  llvm::BasicBlock* done = block("block_end");
  builder_.CreateCondBr(builder_.CreateICmpSLT(start, stop), row, done);

  builder_.SetInsertPoint(row);
  llvm::Value* position = builder_.CreateLoad(index_type_, position_memory, "position");
  llvm::Value* column = builder_.CreateLoad(index_type_, column_memory, "column");
  llvm::Value* count = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, builder_.CreateSub(inner_extent_, column),
      builder_.CreateSub(stop, position), nullptr, "count");
  std::vector<llvm::Value*> row_offsets;
  for (auto* offset : offsets) row_offsets.push_back(builder_.CreateLoad(index_type_, offset));
  if (tile)
    emit_tile_row_piece(start, position, column, count, row_offsets);
  else
    emit_row_piece(start, position, column, count, row_offsets);
  llvm::Value* next_position = builder_.CreateAdd(position, count);
  builder_.CreateStore(next_position, position_memory);
  builder_.CreateStore(index(0), column_memory);
  builder_.CreateCondBr(builder_.CreateICmpSLT(next_position, stop), advance, done);

  // The odometer over the outer reduced axes: the first axis that does not wrap steps by one.
  builder_.SetInsertPoint(advance);
  llvm::BasicBlock* axis_header = block("advance_axis");
  llvm::BasicBlock* axis_step = block("advance_step");
  llvm::BasicBlock* axis_wrap = block("advance_wrap");
  llvm::AllocaInst* axis_memory = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    axis_memory = entry_builder.CreateAlloca(index_type_, nullptr, "axis");
  }
  builder_.CreateStore(builder_.CreateSub(last_axis, index(1)), axis_memory);
  builder_.CreateBr(axis_header);
  builder_.SetInsertPoint(axis_header);
  llvm::Value* axis = builder_.CreateLoad(index_type_, axis_memory, "axis");
  // Unreachable for a valid range (a position before `stop` lies in some row); kept so that no
  // argument makes the kernel index below the multi-index.
  builder_.CreateCondBr(builder_.CreateICmpSGE(axis, index(0)), axis_step, done);
  builder_.SetInsertPoint(axis_step);
  llvm::Value* slot = builder_.CreateGEP(index_type_, reduced_index_, axis);
  llvm::Value* digit =
      builder_.CreateAdd(builder_.CreateAlignedLoad(index_type_, slot, llvm::Align(8)), index(1));
  llvm::Value* extent = load_index(reduced_shape_, axis, "extent");
  std::vector<llvm::Value*> axis_strides;
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    axis_strides.push_back(stride(k, kMaxLoopRank, axis));
    llvm::Value* old = builder_.CreateLoad(index_type_, offsets[k]);
    builder_.CreateStore(builder_.CreateAdd(old, axis_strides.back()), offsets[k]);
  }
  llvm::BasicBlock* carried = block("advanced");
  builder_.CreateCondBr(builder_.CreateICmpSLT(digit, extent), carried, axis_wrap);
  builder_.SetInsertPoint(carried);
  builder_.CreateAlignedStore(digit, slot, llvm::Align(8));
  builder_.CreateBr(row);
  builder_.SetInsertPoint(axis_wrap);
  builder_.CreateAlignedStore(index(0), slot, llvm::Align(8));
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    llvm::Value* old = builder_.CreateLoad(index_type_, offsets[k]);
    builder_.CreateStore(builder_.CreateSub(old, builder_.CreateMul(extent, axis_strides[k])),
                         offsets[k]);
  }
  builder_.CreateStore(builder_.CreateSub(axis, index(1)), axis_memory);
  builder_.CreateBr(axis_header);

  builder_.SetInsertPoint(done);
  if (!tile) return emit_tree();
  emit_tile_tree();
  return nullptr;
}

// Columns [column, column + count) of one row, elements position .. position + count - 1 of the
// reduced sequence: a scalar head up to the next element of lane 0, whole vectors of V lanes, then
// a tail of native vectors. A row shorter than V is all tail, which element by element took 2.3x
// the time for rows of 40 f32 (docs/reductions.md, "Short rows").
void ReduceLowering::emit_row_piece(llvm::Value* block_start, llvm::Value* position,
                                    llvm::Value* column, llvm::Value* count,
                                    const std::vector<llvm::Value*>& offsets) {
  bind_rows(offsets, column);
  const auto lane_mask = static_cast<std::int64_t>(lanes_) - 1;
  llvm::Value* first_lane =
      builder_.CreateAnd(builder_.CreateSub(position, block_start), index(lane_mask));
  llvm::Value* head = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, count,
      builder_.CreateAnd(builder_.CreateSub(index(lanes_), first_lane), index(lane_mask)));
  auto scalar_element = [&](llvm::Value* j) {
    combine_into_lanes(builder_.CreateAnd(builder_.CreateAdd(first_lane, j), index(lane_mask)), 1,
                       emit_producer(1, [&](std::size_t k, unsigned lanes) {
                         return load_along_reduced_axis(k, lanes, j);
                       }));
  };
  emit_counted_loop("head", index(0), head, 1, scalar_element);
  llvm::Value* vector_end = builder_.CreateAdd(
      head, builder_.CreateAnd(builder_.CreateSub(count, head), index(~lane_mask)));
  // The lanes stay in registers across the vector loop.
  llvm::Value* accumulators = emit_carried_loop(
      "vector", "j", head, vector_end, lanes_, load_lanes(), [&](llvm::Value* j, llvm::Value* carried) {
        emit_stream_prefetch(j);
        return combine(lanes_, carried, emit_producer(lanes_, [&](std::size_t k, unsigned lanes) {
                         return load_along_reduced_axis(k, lanes, j);
                       }));
      });
  store_lanes(accumulators);
  // From vector_end on, element j goes to lane j - vector_end (the head ended on lane 0): native
  // vectors, the last one masked to the row, when no input is strided (a strided lane past the
  // row would be read); else element by element.
  if (!tail_maskable_) {
    emit_counted_loop("tail", vector_end, count, 1, scalar_element);
    return;
  }
  emit_counted_loop("tail", vector_end, count, native_lanes_, [&](llvm::Value* j) {
    tail_mask_ = lanes_below(native_lanes_, builder_.CreateSub(count, j));
    llvm::Value* value = emit_producer(native_lanes_, [&](std::size_t k, unsigned lanes) {
      return load_along_reduced_axis(k, lanes, j);
    });
    combine_into_lanes(builder_.CreateSub(j, vector_end), native_lanes_, value, tail_mask_);
    tail_mask_ = nullptr;
  });
}

// rows_ for the row of the producer inputs at `offsets` (their offsets at column 0), from `column`.
void ReduceLowering::bind_rows(const std::vector<llvm::Value*>& offsets, llvm::Value* column) {
  rows_.assign(producer_count(), ProducerRow{});
  for (std::size_t k = 0; k < producer_count(); ++k) {
    const DType dtype = plan_.producer.input_dtypes[k];
    llvm::Value* base = builder_.CreateGEP(memory_type(dtype), input_bases_[k], offsets[k]);
    switch (plan_.producer.access[k]) {
      case InnerAccess::contiguous:
        rows_[k].pointer = builder_.CreateGEP(memory_type(dtype), base, column);
        break;
      case InnerAccess::strided:
        rows_[k].pointer = builder_.CreateGEP(memory_type(dtype), base,
                                              builder_.CreateMul(column, inner_strides_[k]));
        break;
      case InnerAccess::broadcast: {
        rows_[k].broadcast_scalar = LeafReader(builder_, module_, 1).read(plan_.producer.source(k), base);
        rows_[k].broadcast_vector = builder_.CreateVectorSplat(lanes_, rows_[k].broadcast_scalar);
        break;
      }
    }
  }
}

// Asks for the lines kPrefetchBytes ahead of the V columns from `column` of every contiguous
// producer input. The hardware prefetchers alone leave a single stream below the triad bandwidth
// here, more so for max, whose compare-and-select combine makes the loop longer and keeps fewer
// loads in flight; on the Zen 5 host 16 KiB ahead was the best of 1-32 KiB for both (figures in
// docs/reductions.md). A prefetch past the end of a buffer is harmless: it never faults.
void ReduceLowering::emit_stream_prefetch(llvm::Value* column) {
  constexpr std::int64_t kPrefetchBytes = 16 << 10;
  llvm::Function* prefetch =
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {builder_.getPtrTy()});
  for (std::size_t k = 0; k < producer_count(); ++k) {
    if (plan_.producer.access[k] != InnerAccess::contiguous || plan_.producer.input_iotas[k]) continue;
    const DType dtype = plan_.producer.input_dtypes[k];
    llvm::Value* at = builder_.CreateGEP(memory_type(dtype), rows_[k].pointer, column);
    const auto bytes = static_cast<std::int64_t>(lanes_ * itemsize(dtype));
    for (std::int64_t byte = 0; byte < bytes; byte += 64)
      builder_.CreateCall(prefetch,
                          {builder_.CreateConstGEP1_64(builder_.getInt8Ty(), at, kPrefetchBytes + byte),
                           builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});
  }
}

// Input k of the producer on `lanes` columns of the current row piece from `column`.
llvm::Value* ReduceLowering::load_along_reduced_axis(std::size_t k, unsigned lanes,
                                                     llvm::Value* column) {
  llvm::Type* element = memory_type(plan_.producer.input_dtypes[k]);
  const ProducerRow& row = rows_[k];
  LeafReader reader(builder_, module_, lanes, tail_mask_);
  switch (plan_.producer.access[k]) {
    case InnerAccess::broadcast:
      if (lanes == 1) return row.broadcast_scalar;
      return lanes == lanes_ ? row.broadcast_vector : builder_.CreateVectorSplat(lanes, row.broadcast_scalar);
    case InnerAccess::contiguous:
      return reader.read(plan_.producer.source(k), builder_.CreateGEP(element, row.pointer, column));
    case InnerAccess::strided:
      break;
  }
  return reader.read_strided(plan_.producer.source(k),
                             builder_.CreateGEP(element, row.pointer, builder_.CreateMul(column, inner_strides_[k])),
                             inner_strides_[k]);
}

void ReduceLowering::emit_consumer(llvm::Value* output, llvm::Value* result,
                                   const std::vector<llvm::Value*>& kept_offsets) {
  const LoopPlan& consumer = plan_.consumer;
  ElementwiseEmitter emitter(builder_, module_, 1);
  std::vector<llvm::Value*> values(consumer.nodes.size(), nullptr);
  for (std::size_t n = 0; n < consumer.nodes.size(); ++n) {
    const LoopPlanNode& node = consumer.nodes[n];
    if (node.op == ir::Op::input && node.input_index == 0) {
      values[n] = result;
    } else if (node.op == ir::Op::input) {
      // Consumer input i (i >= 1) is kernel input producer_count() + i - 1.
      const std::size_t k = producer_count() + static_cast<std::size_t>(node.input_index) - 1;
      const auto input = static_cast<std::size_t>(node.input_index);
      llvm::Value* pointer =
          builder_.CreateGEP(memory_type(consumer.input_dtypes[input]), input_bases_[k], kept_offsets[k]);
      values[n] = LeafReader(builder_, module_, 1).read(consumer.source(input), pointer);
    } else if (node.op == ir::Op::constant) {
      values[n] = emitter.constant(node.dtype, node.constant);
    } else {
      std::vector<llvm::Value*> operands;
      for (int operand : node.operands) operands.push_back(values[operand]);
      values[n] =
          emitter.emit(node.op, node.dtype, consumer.nodes[node.operands.back()].dtype, operands);
    }
  }
  for (std::size_t j = 0; j < consumer.outputs.size(); ++j) {
    const LoopPlanNode& node = consumer.nodes[consumer.outputs[j]];
    llvm::Value* pointer = builder_.CreateGEP(memory_type(node.dtype), output_bases_[j], output);
    builder_.CreateAlignedStore(emitter.to_memory(node.dtype, values[consumer.outputs[j]]), pointer,
                                align(node.dtype));
  }
}

// The fixed tree: lane[l] ⊕= lane[l + w] for w = V/2 .. 1; the block's partial is lane 0.
llvm::Value* ReduceLowering::emit_tree() {
  llvm::Value* lanes = load_lanes();
  for (unsigned width = lanes_ / 2; width >= 2; width /= 2) {
    std::vector<int> low, high;
    for (unsigned l = 0; l < width; ++l) {
      low.push_back(static_cast<int>(l));
      high.push_back(static_cast<int>(l + width));
    }
    lanes = combine(width, builder_.CreateShuffleVector(lanes, low),
                    builder_.CreateShuffleVector(lanes, high));
  }
  return combine(1, builder_.CreateExtractElement(lanes, std::uint64_t{0}),
                 builder_.CreateExtractElement(lanes, std::uint64_t{1}));
}

llvm::Value* ReduceLowering::load_lanes() {
  llvm::Type* type = llvm::FixedVectorType::get(memory_type(accumulator()), lanes_);
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  return emitter.from_memory(accumulator(),
                             builder_.CreateAlignedLoad(type, lanes_memory_, llvm::Align(64)));
}

void ReduceLowering::store_lanes(llvm::Value* value) {
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  builder_.CreateAlignedStore(emitter.to_memory(accumulator(), value), lanes_memory_,
                              llvm::Align(64));
}

void ReduceLowering::combine_into_lanes(llvm::Value* lane, unsigned width, llvm::Value* value, llvm::Value* mask) {
  ElementwiseEmitter emitter(builder_, module_, width);
  llvm::Type* element = memory_type(accumulator());
  llvm::Type* type = width == 1 ? element : llvm::FixedVectorType::get(element, width);
  llvm::Value* pointer = builder_.CreateGEP(element, lanes_memory_, lane);
  llvm::Value* old = emitter.from_memory(
      accumulator(), builder_.CreateAlignedLoad(type, pointer, align(accumulator())));
  llvm::Value* combined = combine(width, old, value);
  if (mask != nullptr) combined = builder_.CreateSelect(mask, combined, old);
  builder_.CreateAlignedStore(emitter.to_memory(accumulator(), combined), pointer, align(accumulator()));
}

}  // namespace reduce_lowering

void build_reduce_kernel(llvm::Module& module, const ReducePlan& plan, const std::string& symbol,
                         int vector_bits) {
  reduce_lowering::ReduceLowering(module, plan).build(symbol, vector_bits);
}

}  // namespace tensorjit::codegen
