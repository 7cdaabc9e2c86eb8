// The tile walk of a reduction kernel (reduce_kernel.hpp, `vectorize_outputs`): V outputs that
// are consecutive along the innermost kept axis reduced together, one vector across the tile per
// element, into an alloca of V lanes x V outputs; each output keeps its own lanes, blocks and
// tree, so the bits are those of the default walk.
#include "reduce_lowering.hpp"

namespace tensorjit::codegen::reduce_lowering {

// A tile of V outputs: every block reduced for all of them at once, then each one's consumer.
void ReduceLowering::emit_output_tile(llvm::Value* output) {
  const std::vector<llvm::Value*> kept_offsets = emit_kept_offsets(output);
  llvm::Type* vector_type = register_type(context_, accumulator(), lanes_);
  llvm::AllocaInst* totals = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    totals = entry_builder.CreateAlloca(vector_type, nullptr, "totals");
  }
  builder_.CreateStore(constant(lanes_, neutral_value(plan_.op, accumulator())), totals);
  emit_counted_loop("tile_block", index(0), block_count_, 1, [&](llvm::Value* block_index) {
    llvm::Value* partial = emit_block(block_index, kept_offsets, true);
    builder_.CreateStore(combine(lanes_, builder_.CreateLoad(vector_type, totals), partial),
                         totals);
  });
  llvm::Value* results =
      builder_.CreateSelect(builder_.CreateICmpEQ(reduced_count_, index(0)),
                            constant(lanes_, identity_value(plan_.op, accumulator())),
                            builder_.CreateLoad(vector_type, totals));
  emit_counted_loop("tile_output", index(0), index(lanes_), 1, [&](llvm::Value* t) {
    llvm::Value* each = builder_.CreateAdd(output, t);
    emit_consumer(each, builder_.CreateExtractElement(results, t), emit_kept_offsets(each));
  });
}

// Input k of the producer for the V outputs of a tile, from its element at `pointer` (the tile's
// first output) along the innermost kept axis.
llvm::Value* ReduceLowering::load_along_kept_axis(std::size_t k, llvm::Value* pointer) {
  const DType dtype = plan_.producer.input_dtypes[k];
  llvm::Type* element = memory_type(dtype);
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  switch (plan_.producer_kept_access[k]) {
    case InnerAccess::contiguous:
      return emitter.from_memory(
          dtype, builder_.CreateAlignedLoad(llvm::FixedVectorType::get(element, lanes_), pointer,
                                            align(dtype)));
    case InnerAccess::broadcast:
      return builder_.CreateVectorSplat(
          lanes_,
          ElementwiseEmitter(builder_, module_, 1)
              .from_memory(dtype, builder_.CreateAlignedLoad(element, pointer, align(dtype))));
    case InnerAccess::strided:
      break;
  }
  llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, lanes_));
  for (unsigned lane = 0; lane < lanes_; ++lane) {
    llvm::Value* at = builder_.CreateGEP(element, pointer,
                                         builder_.CreateMul(index(lane), kept_inner_strides_[k]));
    vector = builder_.CreateInsertElement(
        vector, builder_.CreateAlignedLoad(element, at, align(dtype)), lane);
  }
  return emitter.from_memory(dtype, vector);
}

// A tile's row piece: element j of the row (reduced position `position + j`) for all V outputs at
// once, into the tile lanes of its lane.
void ReduceLowering::emit_tile_row_piece(llvm::Value* block_start, llvm::Value* position,
                                         llvm::Value* column, llvm::Value* count,
                                         const std::vector<llvm::Value*>& offsets) {
  std::vector<llvm::Value*> bases;
  for (std::size_t k = 0; k < producer_count(); ++k) {
    const DType dtype = plan_.producer.input_dtypes[k];
    bases.push_back(builder_.CreateGEP(
        memory_type(dtype), input_bases_[k],
        builder_.CreateAdd(offsets[k], builder_.CreateMul(column, reduced_inner_strides_[k]))));
  }
  const auto lane_mask = static_cast<std::int64_t>(lanes_) - 1;
  llvm::Value* first_lane = builder_.CreateSub(position, block_start);
  emit_counted_loop("tile_row", index(0), count, 1, [&](llvm::Value* j) {
    llvm::Value* lane = builder_.CreateAnd(builder_.CreateAdd(first_lane, j), index(lane_mask));
    llvm::Value* element = emit_producer(lanes_, [&](std::size_t k, unsigned) {
      const DType dtype = plan_.producer.input_dtypes[k];
      return load_along_kept_axis(
          k, builder_.CreateGEP(memory_type(dtype), bases[k],
                                builder_.CreateMul(j, reduced_inner_strides_[k])));
    });
    store_tile_lane(lane, combine(lanes_, load_tile_lane(lane), element));
  });
}

// The fixed tree of each output of a tile: row l ⊕= row l + w, for w = V/2 .. 1.
llvm::Value* ReduceLowering::emit_tile_tree() {
  for (unsigned width = lanes_ / 2; width >= 1; width /= 2) {
    emit_counted_loop("tile_tree", index(0), index(width), 1, [&](llvm::Value* lane) {
      llvm::Value* partner = builder_.CreateAdd(lane, index(width));
      store_tile_lane(lane, combine(lanes_, load_tile_lane(lane), load_tile_lane(partner)));
    });
  }
  return load_tile_lane(index(0));
}

llvm::Value* ReduceLowering::load_tile_lane(llvm::Value* lane) {
  llvm::Type* type = llvm::FixedVectorType::get(memory_type(accumulator()), lanes_);
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  return emitter.from_memory(
      accumulator(),
      builder_.CreateAlignedLoad(type, tile_lane_pointer(lane), align(accumulator())));
}

void ReduceLowering::store_tile_lane(llvm::Value* lane, llvm::Value* value) {
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  builder_.CreateAlignedStore(emitter.to_memory(accumulator(), value), tile_lane_pointer(lane),
                              align(accumulator()));
}

}  // namespace tensorjit::codegen::reduce_lowering
