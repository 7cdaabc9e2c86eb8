// The lane-major block of the tile walk (reduce_kernel.hpp, `vectorize_outputs`): a wide strip of
// kWideStripTiles tiles of V outputs (16 KiB of f32 per row) whose one reduced axis is walked
// lane by lane, and the fixed tree folded in as the lanes complete, so that only log2(V) + 1 rows
// of accumulators (112 KiB for f32) are live instead of the V rows (1 MiB) that the grouped walk
// (lower_reduce_tile.cpp) would need at that width.
//
// Lane l of a block holds its elements l, l + V, l + 2V, ... in that order (the strict order), and
// the tree combines lane l with lane l + V/2, then those with the ones V/4 further on, and so on:
// its leaves, left to right, are the lanes in bit-reversed order (0, V/2, V/4, 3V/4, ...). The
// lanes are reduced in that order, each into the next free row of a stack, and each pair whose
// two halves are done is combined at once, the earlier (smaller lane) on the left, as the tree
// does: the partial of each output comes out with the tree's bits. After the i-th lane (counting
// from 0) the stack holds popcount(i + 1) rows: a binary counter.
//
// Why: each row visit reads 16 KiB of consecutive input (four 4 KiB pages whole, where a 4 KiB
// strip not aligned to a page touches two pages per row and the hardware prefetchers stop at
// each), in kTilePanels streams of rows V apart, the lane's accumulators in L1.
#include "codegen/src/lower/reduce_lowering.hpp"

namespace tensorjit::codegen::reduce_lowering {

void ReduceLowering::emit_lane_major_block(llvm::Value* block_index,
                                           const std::vector<llvm::Value*>& kept_offsets) {
  const auto lane_bits = static_cast<std::int64_t>(llvm::Log2_32(lanes_));
  llvm::Value* start = builder_.CreateMul(block_index, index(ir::kReductionBlock), "block_start");
  llvm::Value* count = builder_.CreateBinaryIntrinsic(
      llvm::Intrinsic::smin, builder_.CreateSub(reduced_count_, start),
      index(ir::kReductionBlock), nullptr, "count");
  // One reduced axis: the block is one row piece that starts on lane 0, at column `start`.
  const std::vector<llvm::Value*> bases = tile_bases(kept_offsets, start);
  llvm::Value* neutral = constant(lanes_, neutral_value(plan_.op, accumulator()));

  emit_counted_loop("leaf", index(0), index(lanes_), 1, [&](llvm::Value* leaf) {
    llvm::Value* lane = builder_.CreateLShr(
        builder_.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, leaf), index(64 - lane_bits),
        "lane");
    llvm::Value* slot = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, leaf, nullptr);
    emit_counted_loop("leaf_init", index(0), index(strip_), 1,
                      [&](llvm::Value* sub) { store_tile_lane(slot, sub, neutral); });
    // The lane's elements lane + qV for q < rows (count >= 1 and lane < V: no negative).
    llvm::Value* rows =
        builder_.CreateUDiv(builder_.CreateSub(builder_.CreateAdd(count, index(lanes_ - 1)), lane),
                            index(lanes_), "rows");
    llvm::Value* grouped = builder_.CreateAnd(rows, index(~(kTilePanels - 1)));
    auto element = [&](llvm::Value* q, llvm::Value* sub) {
      return tile_element(bases, builder_.CreateAdd(lane, builder_.CreateMul(q, index(lanes_))),
                          sub);
    };
    emit_counted_loop("leaf_group", index(0), grouped, kTilePanels, [&](llvm::Value* q) {
      emit_counted_loop("leaf_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        llvm::Value* accumulators = load_tile_lane(slot, sub);
        for (std::int64_t p = 0; p < kTilePanels; ++p)
          accumulators =
              combine(lanes_, accumulators, element(builder_.CreateAdd(q, index(p)), sub));
        store_tile_lane(slot, sub, accumulators);
      });
    });
    emit_counted_loop("leaf_rest", grouped, rows, 1, [&](llvm::Value* q) {
      emit_counted_loop("leaf_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        store_tile_lane(slot, sub, combine(lanes_, load_tile_lane(slot, sub), element(q, sub)));
      });
    });
    // Pairs completed by this leaf: one per trailing one bit of its number.
    llvm::Value* completed = builder_.CreateBinaryIntrinsic(
        llvm::Intrinsic::cttz, builder_.CreateNot(leaf), builder_.getFalse());
    emit_counted_loop("leaf_fold", index(0), completed, 1, [&](llvm::Value* m) {
      llvm::Value* right = builder_.CreateSub(slot, m);
      llvm::Value* left = builder_.CreateSub(right, index(1));
      emit_counted_loop("leaf_fold_sub", index(0), index(strip_), 1, [&](llvm::Value* sub) {
        store_tile_lane(left, sub,
                        combine(lanes_, load_tile_lane(left, sub), load_tile_lane(right, sub)));
      });
    });
  });
}

}  // namespace tensorjit::codegen::reduce_lowering
