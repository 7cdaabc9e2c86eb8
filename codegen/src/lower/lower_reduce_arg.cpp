// argmax and argmin in one pass (reduce_kernel.hpp): each lane carries the best value it has seen
// and the index where it saw it, so every element is read once, where max-then-find-its-index
// read it twice.
//
// The result is order free (the first index of the extreme, a NaN counting as the extreme: the
// interpreter's index_of_first_extreme), so the lanes need not follow the strict order; they keep
// its blocks of kReductionBlock elements so that an index within a block fits an i32 lane (16
// lanes of i32 next to 16 of f32 per zmm) and so that threads can split one large output by
// blocks (modes 1 and 2, as the other reductions).
//
// The update rule, per lane, for an element that comes after everything the lane has seen: take
// it when it is strictly better (>, < for argmin) or is the first NaN. Lanes start at the neutral
// value of max (min) with the sentinel index kNoIndex, which no element strictly beats when it
// equals the neutral value (-inf, the lowest integer, false): a lane, block or output whose index
// is still the sentinel at the end saw only neutral values, ties all, and its first element,
// index 0 of the output, is the answer. Lanes, blocks and tiles merge with arg_pick: the better
// value, and among equal values (or NaNs) the smaller index.
#include <limits>

#include "codegen/src/lower/reduce_lowering.hpp"

namespace tensorjit::codegen::reduce_lowering {
namespace {

constexpr std::int64_t kNoIndex = std::numeric_limits<std::int64_t>::max();
constexpr std::int32_t kNoRelativeIndex = std::numeric_limits<std::int32_t>::max();
// Tile walk: rows read per visit of a tile's lanes, and how far ahead its rows are prefetched
// (into L1; a strip row is 4 KiB of f32). 8 and 16 beat 4 and 8 in `tensorjit-dump --run` of a
// 4096 x 4096 f32 argmin over axis 0 on a loaded host (7.5-7.9 against 9.2-9.7 ms, three
// alternations); not searched further.
constexpr std::int64_t kArgPanels = 8;
constexpr std::int64_t kArgPrefetchRows = 16;

}  // namespace

llvm::Value* ReduceLowering::arg_better(llvm::Value* candidate, llvm::Value* current) {
  const bool max = plan_.op == ir::Op::argmax;
  const DType dtype = accumulator();
  if (is_floating(dtype)) {
    llvm::Value* better = max ? builder_.CreateFCmpOGT(candidate, current)
                              : builder_.CreateFCmpOLT(candidate, current);
    llvm::Value* first_nan = builder_.CreateAnd(builder_.CreateFCmpUNO(candidate, candidate),
                                                builder_.CreateFCmpORD(current, current));
    return builder_.CreateOr(better, first_nan);
  }
  if (dtype == DType::boolean)
    return max ? builder_.CreateICmpUGT(candidate, current)
               : builder_.CreateICmpULT(candidate, current);
  return max ? builder_.CreateICmpSGT(candidate, current)
             : builder_.CreateICmpSLT(candidate, current);
}

ArgPair ReduceLowering::arg_pick(const ArgPair& a, const ArgPair& b) {
  llvm::Value* tie = nullptr;
  if (is_floating(accumulator())) {
    llvm::Value* both_nan = builder_.CreateAnd(builder_.CreateFCmpUNO(a.value, a.value),
                                               builder_.CreateFCmpUNO(b.value, b.value));
    tie = builder_.CreateOr(builder_.CreateFCmpOEQ(a.value, b.value), both_nan);
  } else {
    tie = builder_.CreateICmpEQ(a.value, b.value);
  }
  llvm::Value* takes_b = builder_.CreateOr(
      arg_better(b.value, a.value),
      builder_.CreateAnd(tie, builder_.CreateICmpSLT(b.index, a.index)));
  return ArgPair{builder_.CreateSelect(takes_b, b.value, a.value),
                 builder_.CreateSelect(takes_b, b.index, a.index)};
}

llvm::Value* ReduceLowering::absolute_index(llvm::Value* block_start, llvm::Value* relative,
                                            unsigned lanes) {
  auto splat = [&](llvm::Value* v) {
    return lanes == 1 ? v : builder_.CreateVectorSplat(lanes, v);
  };
  llvm::Value* none = builder_.CreateICmpEQ(relative, splat(builder_.getInt32(kNoRelativeIndex)));
  llvm::Value* absolute =
      builder_.CreateAdd(splat(block_start), builder_.CreateSExt(relative, splat(index(0))->getType()));
  return builder_.CreateSelect(none, splat(index(kNoIndex)), absolute);
}

// One output (the default walk); in mode 1 only its block partials, in mode 2 only its finish.
void ReduceLowering::emit_arg_output(llvm::Value* output) {
  const std::vector<llvm::Value*> kept_offsets = emit_kept_offsets(output);
  bind_rows(kept_offsets, index(0));
  const auto [finishing, writing, first_block, last_block, partial_row] = emit_block_walk(output);
  llvm::Type* value_type = register_type(context_, accumulator(), 1);
  llvm::Type* value_memory = memory_type(accumulator());
  llvm::AllocaInst* best_value = nullptr;
  llvm::AllocaInst* best_index = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    best_value = entry_builder.CreateAlloca(value_type, nullptr, "best_value");
    best_index = entry_builder.CreateAlloca(index_type_, nullptr, "best_index");
  }
  ElementwiseEmitter scalar(builder_, module_, 1);
  auto reset = [&] {
    builder_.CreateStore(constant(1, neutral_value(plan_.op, accumulator())), best_value);
    builder_.CreateStore(index(kNoIndex), best_index);
  };
  auto merge = [&](const ArgPair& later) {
    ArgPair best = arg_pick(ArgPair{builder_.CreateLoad(value_type, best_value),
                                    builder_.CreateLoad(index_type_, best_index)},
                            later);
    builder_.CreateStore(best.value, best_value);
    builder_.CreateStore(best.index, best_index);
  };
  // Partial slot (o, b): the index at byte 0, the value at byte 8.
  auto slot = [&](llvm::Value* block_index) {
    return builder_.CreateGEP(builder_.getInt8Ty(), partials_,
                              builder_.CreateMul(builder_.CreateAdd(partial_row, block_index),
                                                 index(16)));
  };
  auto value_slot = [&](llvm::Value* at) {
    return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), at, 8);
  };

  llvm::BasicBlock* reduce_blocks = block("arg_blocks");
  llvm::BasicBlock* read_partials = block("arg_read_partials");
  llvm::BasicBlock* finish = block("arg_finish");
  llvm::BasicBlock* next = block("arg_next_output");
  builder_.CreateCondBr(finishing, read_partials, reduce_blocks);

  builder_.SetInsertPoint(reduce_blocks);
  reset();
  emit_counted_loop("arg_block", first_block, last_block, 1, [&](llvm::Value* block_index) {
    const ArgPair partial = emit_arg_block(block_index);
    llvm::BasicBlock* store = block("arg_store_partial");
    llvm::BasicBlock* add = block("arg_merge_partial");
    llvm::BasicBlock* done = block("arg_block_done");
    builder_.CreateCondBr(writing, store, add);
    builder_.SetInsertPoint(store);
    llvm::Value* at = slot(block_index);
    builder_.CreateAlignedStore(partial.index, at, llvm::Align(8));
    builder_.CreateAlignedStore(scalar.to_memory(accumulator(), partial.value), value_slot(at),
                                align(accumulator()));
    builder_.CreateBr(done);
    builder_.SetInsertPoint(add);
    merge(partial);
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
  });
  builder_.CreateCondBr(writing, next, finish);

  builder_.SetInsertPoint(read_partials);
  reset();
  emit_counted_loop("arg_partial", index(0), block_count_, 1, [&](llvm::Value* block_index) {
    llvm::Value* at = slot(block_index);
    merge(ArgPair{scalar.from_memory(accumulator(), builder_.CreateAlignedLoad(
                                                        value_memory, value_slot(at),
                                                        align(accumulator()))),
                  builder_.CreateAlignedLoad(index_type_, at, llvm::Align(8))});
  });
  builder_.CreateBr(finish);

  builder_.SetInsertPoint(finish);
  llvm::Value* found = builder_.CreateLoad(index_type_, best_index);
  llvm::Value* result = builder_.CreateSelect(builder_.CreateICmpEQ(found, index(kNoIndex)),
                                              index(0), found, "result");
  emit_consumer(output, result, kept_offsets);
  builder_.CreateBr(next);
  builder_.SetInsertPoint(next);
}

// Elements [b B, min(n, (b + 1) B)) of the one reduced axis (rows_ bound at column 0): V lanes of
// (value, block-relative i32 index) in registers, their tree, then the last n mod V elements one
// by one.
ArgPair ReduceLowering::emit_arg_block(llvm::Value* block_index) {
  llvm::Value* start = builder_.CreateMul(block_index, index(ir::kReductionBlock), "block_start");
  llvm::Value* count = builder_.CreateSub(
      builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, reduced_count_,
                                     builder_.CreateAdd(start, index(ir::kReductionBlock))),
      start, "count");
  const auto lane_mask = static_cast<std::int64_t>(lanes_) - 1;
  llvm::Value* vector_end = builder_.CreateAnd(count, index(~lane_mask));
  llvm::Type* i32 = builder_.getInt32Ty();
  std::vector<llvm::Constant*> iota;
  for (unsigned l = 0; l < lanes_; ++l) iota.push_back(builder_.getInt32(l));

  llvm::BasicBlock* before = builder_.GetInsertBlock();
  llvm::BasicBlock* header = block("arg_vector");
  llvm::BasicBlock* body = block("arg_vector");
  llvm::BasicBlock* after = block("arg_vector");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* j = builder_.CreatePHI(index_type_, 2, "j");
  llvm::Value* neutral = constant(lanes_, neutral_value(plan_.op, accumulator()));
  llvm::PHINode* best = builder_.CreatePHI(neutral->getType(), 2, "best");
  llvm::PHINode* where = builder_.CreatePHI(llvm::FixedVectorType::get(i32, lanes_), 2, "where");
  llvm::PHINode* position = builder_.CreatePHI(where->getType(), 2, "position");
  j->addIncoming(index(0), before);
  best->addIncoming(neutral, before);
  where->addIncoming(builder_.CreateVectorSplat(lanes_, builder_.getInt32(kNoRelativeIndex)),
                     before);
  position->addIncoming(llvm::ConstantVector::get(iota), before);
  builder_.CreateCondBr(builder_.CreateICmpSLT(j, vector_end), body, after);
  builder_.SetInsertPoint(body);
  llvm::Value* column = builder_.CreateAdd(start, j);
  emit_stream_prefetch(column);
  llvm::Value* element = emit_producer(lanes_, [&](std::size_t k, unsigned lanes) {
    return load_along_reduced_axis(k, lanes, column);
  });
  llvm::Value* takes = arg_better(element, best);
  j->addIncoming(builder_.CreateAdd(j, index(lanes_)), builder_.GetInsertBlock());
  best->addIncoming(builder_.CreateSelect(takes, element, best), builder_.GetInsertBlock());
  where->addIncoming(builder_.CreateSelect(takes, position, where), builder_.GetInsertBlock());
  position->addIncoming(
      builder_.CreateAdd(position, builder_.CreateVectorSplat(lanes_, builder_.getInt32(lanes_))),
      builder_.GetInsertBlock());
  builder_.CreateBr(header);

  // The tree: lanes l and l + w merged for w = V/2 .. 1.
  builder_.SetInsertPoint(after);
  ArgPair pair{best, where};
  for (unsigned width = lanes_ / 2; width >= 1; width /= 2) {
    std::vector<int> low, high;
    for (unsigned l = 0; l < width; ++l) {
      low.push_back(static_cast<int>(l));
      high.push_back(static_cast<int>(l + width));
    }
    pair = arg_pick(ArgPair{builder_.CreateShuffleVector(pair.value, low),
                            builder_.CreateShuffleVector(pair.index, low)},
                    ArgPair{builder_.CreateShuffleVector(pair.value, high),
                            builder_.CreateShuffleVector(pair.index, high)});
  }
  llvm::AllocaInst* tail_value = nullptr;
  llvm::AllocaInst* tail_index = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    tail_value = entry_builder.CreateAlloca(register_type(context_, accumulator(), 1), nullptr,
                                            "tail_value");
    tail_index = entry_builder.CreateAlloca(i32, nullptr, "tail_index");
  }
  builder_.CreateStore(builder_.CreateExtractElement(pair.value, std::uint64_t{0}), tail_value);
  builder_.CreateStore(builder_.CreateExtractElement(pair.index, std::uint64_t{0}), tail_index);
  emit_counted_loop("arg_tail", vector_end, count, 1, [&](llvm::Value* t) {
    llvm::Value* x = emit_producer(1, [&](std::size_t k, unsigned lanes) {
      return load_along_reduced_axis(k, lanes, builder_.CreateAdd(start, t));
    });
    llvm::Value* current = builder_.CreateLoad(x->getType(), tail_value);
    llvm::Value* takes_tail = arg_better(x, current);
    builder_.CreateStore(builder_.CreateSelect(takes_tail, x, current), tail_value);
    builder_.CreateStore(builder_.CreateSelect(takes_tail, builder_.CreateTrunc(t, i32),
                                               builder_.CreateLoad(i32, tail_index)),
                         tail_index);
  });
  return ArgPair{builder_.CreateLoad(register_type(context_, accumulator(), 1), tail_value),
                 absolute_index(start, builder_.CreateLoad(i32, tail_index), 1)};
}

// A strip of `strip` tiles of V outputs consecutive along the kept axis, each output one lane:
// per block, the lanes' (value, relative index) in an alloca, visited kArgPanels rows at a time
// (the rows read as that many streams, the strip's next rows prefetched); then merged into the
// outputs' running pairs, and each output's consumer.
void ReduceLowering::emit_arg_tile(llvm::Value* output, unsigned strip) {
  strip_ = strip;
  const std::vector<llvm::Value*> kept_offsets = emit_kept_offsets(output);
  llvm::Type* value_vector = register_type(context_, accumulator(), lanes_);
  llvm::Type* where_vector = llvm::FixedVectorType::get(builder_.getInt32Ty(), lanes_);
  llvm::Type* index_vector = llvm::FixedVectorType::get(index_type_, lanes_);
  llvm::AllocaInst *block_values = nullptr, *block_where = nullptr;
  llvm::AllocaInst *running_values = nullptr, *running_index = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    block_values = entry_builder.CreateAlloca(value_vector, index(kStripTiles), "arg_values");
    block_where = entry_builder.CreateAlloca(where_vector, index(kStripTiles), "arg_where");
    running_values = entry_builder.CreateAlloca(value_vector, index(kStripTiles), "arg_best");
    running_index = entry_builder.CreateAlloca(index_vector, index(kStripTiles), "arg_index");
  }
  auto at = [&](llvm::Type* type, llvm::AllocaInst* array, llvm::Value* sub) {
    return builder_.CreateGEP(type, array, sub);
  };
  llvm::Value* neutral = constant(lanes_, neutral_value(plan_.op, accumulator()));
  emit_counted_loop("arg_strip_init", index(0), index(strip_), 1, [&](llvm::Value* sub) {
    builder_.CreateStore(neutral, at(value_vector, running_values, sub));
    builder_.CreateStore(builder_.CreateVectorSplat(lanes_, index(kNoIndex)),
                         at(index_vector, running_index, sub));
  });
  llvm::Function* prefetch =
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {builder_.getPtrTy()});

  emit_counted_loop("arg_tile_block", index(0), block_count_, 1, [&](llvm::Value* block_index) {
    llvm::Value* start = builder_.CreateMul(block_index, index(ir::kReductionBlock));
    llvm::Value* count = builder_.CreateSub(
        builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, reduced_count_,
                                       builder_.CreateAdd(start, index(ir::kReductionBlock))),
        start);
    emit_counted_loop("arg_block_init", index(0), index(strip_), 1, [&](llvm::Value* sub) {
      builder_.CreateStore(neutral, at(value_vector, block_values, sub));
      builder_.CreateStore(builder_.CreateVectorSplat(lanes_, builder_.getInt32(kNoRelativeIndex)),
                           at(where_vector, block_where, sub));
    });
    const std::vector<llvm::Value*> bases = tile_bases(kept_offsets, start);
    auto element_at = [&](llvm::Value* row, llvm::Value* sub) { return tile_element(bases, row, sub); };
    auto prefetch_row = [&](llvm::Value* row) {
      for (std::size_t k = 0; k < producer_count(); ++k) {
        if (plan_.producer_kept_access[k] != InnerAccess::contiguous) continue;
        const DType dtype = plan_.producer.input_dtypes[k];
        llvm::Value* line = builder_.CreateGEP(
            memory_type(dtype), bases[k], builder_.CreateMul(row, reduced_inner_strides_[k]));
        const auto bytes = static_cast<std::int64_t>(strip_ * lanes_ * itemsize(dtype));
        for (std::int64_t byte = 0; byte < bytes; byte += 64)
          builder_.CreateCall(prefetch,
                              {builder_.CreateConstGEP1_64(builder_.getInt8Ty(), line, byte),
                               builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});
      }
    };
    // Rows [first, first + rows) for every tile of the strip.
    auto visit = [&](llvm::Value* first, std::int64_t rows) {
      for (std::int64_t p = 0; p < rows; ++p)
        prefetch_row(builder_.CreateAdd(first, index(kArgPrefetchRows + p)));
      emit_counted_loop("arg_tile_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        llvm::Value* best = builder_.CreateLoad(value_vector, at(value_vector, block_values, sub));
        llvm::Value* where = builder_.CreateLoad(where_vector, at(where_vector, block_where, sub));
        for (std::int64_t p = 0; p < rows; ++p) {
          llvm::Value* row = builder_.CreateAdd(first, index(p));
          llvm::Value* element = element_at(row, sub);
          llvm::Value* takes = arg_better(element, best);
          best = builder_.CreateSelect(takes, element, best);
          where = builder_.CreateSelect(
              takes,
              builder_.CreateVectorSplat(lanes_, builder_.CreateTrunc(row, builder_.getInt32Ty())),
              where);
        }
        builder_.CreateStore(best, at(value_vector, block_values, sub));
        builder_.CreateStore(where, at(where_vector, block_where, sub));
      });
    };
    llvm::Value* panels_end = builder_.CreateAnd(count, index(~(kArgPanels - 1)));
    emit_counted_loop("arg_tile_rows", index(0), panels_end, kArgPanels,
                      [&](llvm::Value* first) { visit(first, kArgPanels); });
    emit_counted_loop("arg_tile_tail", panels_end, count, 1,
                      [&](llvm::Value* row) { visit(row, 1); });
    emit_counted_loop("arg_block_merge", index(0), index(strip_), 1, [&](llvm::Value* sub) {
      const ArgPair merged = arg_pick(
          ArgPair{builder_.CreateLoad(value_vector, at(value_vector, running_values, sub)),
                  builder_.CreateLoad(index_vector, at(index_vector, running_index, sub))},
          ArgPair{builder_.CreateLoad(value_vector, at(value_vector, block_values, sub)),
                  absolute_index(start,
                                 builder_.CreateLoad(where_vector, at(where_vector, block_where, sub)),
                                 lanes_)});
      builder_.CreateStore(merged.value, at(value_vector, running_values, sub));
      builder_.CreateStore(merged.index, at(index_vector, running_index, sub));
    });
  });

  emit_counted_loop(
      "arg_tile_output", index(0), index(static_cast<std::int64_t>(strip_) * lanes_), 1,
      [&](llvm::Value* t) {
        llvm::Value* indices =
            builder_.CreateLoad(index_vector, at(index_vector, running_index,
                                                 builder_.CreateUDiv(t, index(lanes_))));
        llvm::Value* found =
            builder_.CreateExtractElement(indices, builder_.CreateURem(t, index(lanes_)));
        llvm::Value* result =
            builder_.CreateSelect(builder_.CreateICmpEQ(found, index(kNoIndex)), index(0), found);
        llvm::Value* each = builder_.CreateAdd(output, t);
        emit_consumer(each, result, emit_kept_offsets(each));
      });
}

}  // namespace tensorjit::codegen::reduce_lowering
