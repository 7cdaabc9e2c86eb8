// The tile walk of a reduction kernel (reduce_kernel.hpp, `vectorize_outputs`): V outputs that
// are consecutive along the innermost kept axis (a tile), or a strip of kStripTiles tiles side by
// side, reduced together, one vector across each tile per element, into an alloca of V lanes x
// kStripTiles x V outputs; each output keeps its own lanes, blocks and tree, so the bits are those
// of the default walk. A strip reads 4 KiB of f32 per row it visits: column sums step a whole row
// between elements, and one tile per visit (256 bytes of a new page each time) ran at a third of
// the memory bandwidth. The accumulators (256 KiB for a strip of f32) live in L2: groups of
// kPanels x V rows are walked lane by lane so each lane's accumulators are loaded and stored once
// per kPanels rows, and every visit prefetches the rows kPrefetchRows ahead (8 panels, 4 rows:
// 10-15% faster than 4 panels and 8 rows, which an earlier search over 2-16 panels had picked,
// in side-by-side runs of the 4096 x 4096 f32 column sum on the Zen 5 host; narrower strips,
// whose accumulators fit L1, were slower). Where 64 tiles fit and the reduced axes are one, a
// wider strip is walked lane by lane instead (lower_reduce_lane_major.cpp).
#include <algorithm>

#include "codegen/src/lower/reduce_lowering.hpp"

namespace tensorjit::codegen::reduce_lowering {

// A strip of `strip` tiles of V outputs: every block reduced for all of them at once (each row
// visit reads strip * V consecutive elements), then each output's consumer.
void ReduceLowering::emit_output_tile(llvm::Value* output, unsigned strip, bool lane_major) {
  strip_ = strip;
  const std::vector<llvm::Value*> kept_offsets = emit_kept_offsets(output);
  llvm::Type* vector_type = register_type(context_, accumulator(), lanes_);
  llvm::AllocaInst* totals = nullptr;
  {
    llvm::IRBuilder<> entry_builder(&function_->getEntryBlock(),
                                    function_->getEntryBlock().begin());
    totals = entry_builder.CreateAlloca(vector_type, index(strip_), "totals");
  }
  auto total = [&](llvm::Value* sub) { return builder_.CreateGEP(vector_type, totals, sub); };
  emit_counted_loop("strip_total", index(0), index(strip_), 1, [&](llvm::Value* sub) {
    builder_.CreateStore(constant(lanes_, neutral_value(plan_.op, accumulator())), total(sub));
  });
  emit_counted_loop("tile_block", index(0), block_count_, 1, [&](llvm::Value* block_index) {
    if (lane_major)
      emit_lane_major_block(block_index, kept_offsets);
    else
      emit_block(block_index, kept_offsets, true);
    emit_counted_loop("strip_partial", index(0), index(strip_), 1, [&](llvm::Value* sub) {
      llvm::Value* sum = combine(lanes_, builder_.CreateLoad(vector_type, total(sub)),
                                 load_tile_lane(index(0), sub));
      builder_.CreateStore(sum, total(sub));
    });
  });
  llvm::Value* empty = builder_.CreateICmpEQ(reduced_count_, index(0));
  llvm::Value* identity = constant(lanes_, identity_value(plan_.op, accumulator()));
  emit_counted_loop(
      "tile_output", index(0), index(static_cast<std::int64_t>(strip_) * lanes_), 1,
      [&](llvm::Value* t) {
        llvm::Value* results = builder_.CreateSelect(
            empty, identity,
            builder_.CreateLoad(vector_type, total(builder_.CreateUDiv(t, index(lanes_)))));
        llvm::Value* each = builder_.CreateAdd(output, t);
        emit_consumer(each,
                      builder_.CreateExtractElement(results, builder_.CreateURem(t, index(lanes_))),
                      emit_kept_offsets(each));
      });
}

// Input k of the producer for the V outputs of a tile, from its element at `pointer` (the tile's
// first output) along the innermost kept axis.
llvm::Value* ReduceLowering::load_along_kept_axis(std::size_t k, llvm::Value* pointer) {
  const LeafSource leaf = plan_.producer.source(k);
  switch (plan_.producer_kept_access[k]) {
    case InnerAccess::contiguous:
      return LeafReader(builder_, module_, lanes_).read(leaf, pointer);
    case InnerAccess::broadcast:
      return builder_.CreateVectorSplat(lanes_, LeafReader(builder_, module_, 1).read(leaf, pointer));
    case InnerAccess::strided:
      break;
  }
  return LeafReader(builder_, module_, lanes_).read_strided(leaf, pointer, kept_inner_strides_[k]);
}

// A tile's row piece: element j of the row (reduced position `position + j`) for the V outputs of
// each tile of the strip at once, into the tile lanes of its lane. Between a head and a tail taken
// element by element, whole groups of kPanels x V elements run lane by lane: lane l takes
// elements l, l + V, .. l + (kPanels - 1) V of the group in that order (its order in the strict
// walk), so its accumulators are loaded and stored once per kPanels elements instead of once per
// element; the group is read as kPanels streams of consecutive rows. Each element visit also
// prefetches the same strip kPrefetchRows elements further on.
void ReduceLowering::emit_tile_row_piece(llvm::Value* block_start, llvm::Value* position,
                                         llvm::Value* column, llvm::Value* count,
                                         const std::vector<llvm::Value*>& offsets) {
  constexpr std::int64_t kPanels = kTilePanels;
  constexpr std::int64_t kPrefetchRows = 4;
  const std::vector<llvm::Value*> bases = tile_bases(offsets, column);
  auto element_at = [&](llvm::Value* j, llvm::Value* sub) { return tile_element(bases, j, sub); };
  llvm::Function* prefetch =
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {builder_.getPtrTy()});
  auto prefetch_strip = [&](llvm::Value* j) {
    llvm::Value* ahead = builder_.CreateAdd(j, index(kPrefetchRows));
    for (std::size_t k = 0; k < producer_count(); ++k) {
      if (plan_.producer_kept_access[k] != InnerAccess::contiguous) continue;
      const DType dtype = plan_.producer.input_dtypes[k];
      llvm::Value* at = builder_.CreateGEP(memory_type(dtype), bases[k],
                                           builder_.CreateMul(ahead, reduced_inner_strides_[k]));
      const auto bytes = static_cast<std::int64_t>(strip_ * lanes_ * itemsize(dtype));
      // Every 64 bytes, and the last byte: a line of its own when the row is not on a line.
      for (std::int64_t byte = 0; byte < bytes + 63; byte += 64)
        builder_.CreateCall(prefetch, {builder_.CreateConstGEP1_64(builder_.getInt8Ty(), at,
                                                                   std::min(byte, bytes - 1)),
                                       builder_.getInt32(0), builder_.getInt32(3),
                                       builder_.getInt32(1)});
    }
  };
  const auto lane_mask = static_cast<std::int64_t>(lanes_) - 1;
  llvm::Value* first_lane = builder_.CreateSub(position, block_start);
  auto one_by_one = [&](llvm::Value* j) {
    prefetch_strip(j);
    llvm::Value* lane = builder_.CreateAnd(builder_.CreateAdd(first_lane, j), index(lane_mask));
    emit_counted_loop("tile_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
      store_tile_lane(lane, sub, combine(lanes_, load_tile_lane(lane, sub), element_at(j, sub)));
    });
  };
  const std::int64_t group = kPanels * lanes_;
  llvm::Value* head = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, count,
      builder_.CreateAnd(builder_.CreateSub(index(lanes_), builder_.CreateAnd(first_lane, index(lane_mask))),
                         index(lane_mask)));
  llvm::Value* groups_end =
      builder_.CreateAdd(head, builder_.CreateAnd(builder_.CreateSub(count, head), index(~(group - 1))));
  emit_counted_loop("tile_head", index(0), head, 1, one_by_one);
  emit_counted_loop("tile_group", head, groups_end, group, [&](llvm::Value* start) {
    // Element start + l + p V is in lane l: start is on lane 0.
    emit_counted_loop("tile_lane", index(0), index(lanes_), 1, [&](llvm::Value* lane) {
      llvm::Value* first = builder_.CreateAdd(start, lane);
      // A loop over the panels: unrolled, their kPanels x 64 prefetches of each input made one
      // block of 2,800 for MiniLM's pooling (a layernorm's five inputs), which LLVM's Default
      // codegen took 10 s to compile (docs/models.md, "Start-up").
      emit_counted_loop("tile_prefetch", index(0), index(kPanels), 1, [&](llvm::Value* p) {
        prefetch_strip(builder_.CreateAdd(first, builder_.CreateMul(p, index(lanes_))));
      });
      emit_counted_loop("tile_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        llvm::Value* accumulators = load_tile_lane(lane, sub);
        for (std::int64_t p = 0; p < kPanels; ++p)
          accumulators = combine(lanes_, accumulators,
                                 element_at(builder_.CreateAdd(first, index(p * lanes_)), sub));
        store_tile_lane(lane, sub, accumulators);
      });
    });
  });
  emit_counted_loop("tile_tail", groups_end, count, 1, one_by_one);
}

std::vector<llvm::Value*> ReduceLowering::tile_bases(const std::vector<llvm::Value*>& offsets,
                                                     llvm::Value* column) {
  std::vector<llvm::Value*> bases;
  for (std::size_t k = 0; k < producer_count(); ++k) {
    const DType dtype = plan_.producer.input_dtypes[k];
    bases.push_back(builder_.CreateGEP(
        memory_type(dtype), input_bases_[k],
        builder_.CreateAdd(offsets[k], builder_.CreateMul(column, reduced_inner_strides_[k]))));
  }
  return bases;
}

llvm::Value* ReduceLowering::tile_element(const std::vector<llvm::Value*>& bases, llvm::Value* j,
                                          llvm::Value* sub) {
  llvm::Value* first_output = builder_.CreateMul(sub, index(lanes_));
  return emit_producer(lanes_, [&](std::size_t k, unsigned) {
    const DType dtype = plan_.producer.input_dtypes[k];
    llvm::Value* offset =
        builder_.CreateAdd(builder_.CreateMul(j, reduced_inner_strides_[k]),
                           builder_.CreateMul(first_output, kept_inner_strides_[k]));
    return load_along_kept_axis(k, builder_.CreateGEP(memory_type(dtype), bases[k], offset));
  });
}

// The fixed tree of each output of the strip: row l ⊕= row l + w, for w = V/2 .. 1.
void ReduceLowering::emit_tile_tree() {
  for (unsigned width = lanes_ / 2; width >= 1; width /= 2) {
    emit_counted_loop("tile_tree", index(0), index(width), 1, [&](llvm::Value* lane) {
      llvm::Value* partner = builder_.CreateAdd(lane, index(width));
      emit_counted_loop("tile_tree_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        store_tile_lane(lane, sub,
                        combine(lanes_, load_tile_lane(lane, sub), load_tile_lane(partner, sub)));
      });
    });
  }
}

llvm::Value* ReduceLowering::load_tile_lane(llvm::Value* lane, llvm::Value* sub) {
  llvm::Type* type = llvm::FixedVectorType::get(memory_type(accumulator()), lanes_);
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  return emitter.from_memory(
      accumulator(),
      builder_.CreateAlignedLoad(type, tile_lane_pointer(lane, sub), align(accumulator())));
}

void ReduceLowering::store_tile_lane(llvm::Value* lane, llvm::Value* sub, llvm::Value* value) {
  ElementwiseEmitter emitter(builder_, module_, lanes_);
  builder_.CreateAlignedStore(emitter.to_memory(accumulator(), value), tile_lane_pointer(lane, sub),
                              align(accumulator()));
}

}  // namespace tensorjit::codegen::reduce_lowering
