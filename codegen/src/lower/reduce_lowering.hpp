// The lowering of one reduction kernel (lower_reduce.cpp: the default walk; lower_reduce_tile.cpp:
// tiles of outputs), shared by its two files. Internal to codegen/src.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include <tensorjit/ir/reduction_order.hpp>

#include "codegen/src/lower/counted_loop.hpp"
#include "codegen/src/lower/emit_elementwise.hpp"
#include "codegen/src/lower/kernel_lowering.hpp"
#include "codegen/src/lower/leaf_values.hpp"
#include "codegen/src/lower/lower_reduce.hpp"
#include "codegen/src/lower/reduce_values.hpp"

namespace tensorjit::codegen::reduce_lowering {

constexpr int kStridesPerInput = 2 * kMaxLoopRank;

// argmax / argmin lanes: the best values and where each was seen.
struct ArgPair {
  llvm::Value* value = nullptr;
  llvm::Value* index = nullptr;
};

struct ProducerRow {
  llvm::Value* pointer = nullptr;           // contiguous and strided: the element at column 0
  llvm::Value* broadcast_scalar = nullptr;  // broadcast: the one value
  llvm::Value* broadcast_vector = nullptr;
};

class ReduceLowering : KernelLowering {
 public:
  ReduceLowering(llvm::Module& module, const ReducePlan& plan)
      : KernelLowering(module),
        plan_(plan),
        combine_(combine_op(plan.op, plan.accumulator_dtype)),
        lanes_(static_cast<unsigned>(ir::reduction_lanes(itemsize(plan.accumulator_dtype)))) {}

  void build(const std::string& symbol, int vector_bits);

 private:
  // args->input_strides[k * kStridesPerInput + first + axis]
  llvm::Value* stride(std::size_t k, int first, llvm::Value* axis) {
    llvm::Value* position =
        builder_.CreateAdd(index(static_cast<std::int64_t>(k) * kStridesPerInput + first), axis);
    return load_index(strides_, position, "stride");
  }
  llvm::Type* memory_type(DType dtype) { return memory_element_type(context_, dtype); }
  llvm::Align align(DType dtype) { return llvm::Align(itemsize(dtype)); }
  DType accumulator() const { return plan_.accumulator_dtype; }
  std::size_t producer_count() const { return plan_.producer.input_dtypes.size(); }
  std::size_t input_count() const {
    return plan_.consumer.input_dtypes.size() - 1 + producer_count();
  }

  // A loop [start, end) over i64 values; `body` emits one iteration at the given value.
  template <typename Body>
  void emit_counted_loop(const char* name, llvm::Value* start, llvm::Value* end, std::int64_t step,
                         Body body);
  llvm::Value* combine(unsigned lanes, llvm::Value* a, llvm::Value* b) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    llvm::Value* operands[] = {a, b};
    return emitter.emit(combine_, accumulator(), accumulator(), operands);
  }
  llvm::Value* constant(unsigned lanes, const ir::Scalar& value) {
    return ElementwiseEmitter(builder_, module_, lanes).constant(accumulator(), value);
  }

  void emit_prologue();
  std::vector<llvm::Value*> emit_kept_offsets(llvm::Value* output);
  // Which of one output's blocks this call reduces (ReduceArgs::mode): all of them (mode 0), a
  // range whose partials it stores (mode 1, `writing`), or none, finishing from the partials
  // (mode 2, `finishing`); the output's row of partials starts at `partial_row`.
  struct BlockWalk {
    llvm::Value* finishing;
    llvm::Value* writing;
    llvm::Value* first_block;
    llvm::Value* last_block;
    llvm::Value* partial_row;
  };
  BlockWalk emit_block_walk(llvm::Value* output);
  void emit_single_output(llvm::Value* output);
  // `strip` tiles of V outputs side by side: 1 or kStripTiles (one 4 KiB page of f32 per row),
  // each block in groups of panels (emit_block); or, `lane_major`, kWideStripTiles (16 KiB of f32
  // per row) over one reduced axis, each block lane by lane (emit_lane_major_block).
  void emit_output_tile(llvm::Value* output, unsigned strip, bool lane_major);
  // One block's partial: a scalar, or with `tile` a vector over the V outputs of a tile.
  llvm::Value* emit_block(llvm::Value* block_index, const std::vector<llvm::Value*>& kept_offsets,
                          bool tile);
  void emit_row_piece(llvm::Value* block_start, llvm::Value* position, llvm::Value* column,
                      llvm::Value* count, const std::vector<llvm::Value*>& offsets);
  // rows_ for the row of the producer inputs at `offsets`, from `column`.
  void bind_rows(const std::vector<llvm::Value*>& offsets, llvm::Value* column);
  void emit_tile_row_piece(llvm::Value* block_start, llvm::Value* position, llvm::Value* column,
                           llvm::Value* count, const std::vector<llvm::Value*>& offsets);
  // Each producer input's element at column `column` of the row at `offsets` (tile walks).
  std::vector<llvm::Value*> tile_bases(const std::vector<llvm::Value*>& offsets,
                                       llvm::Value* column);
  // The producer at element j of the row piece at `bases`, for the V outputs of tile `sub`.
  llvm::Value* tile_element(const std::vector<llvm::Value*>& bases, llvm::Value* j,
                            llvm::Value* sub);
  // One block of a strip over one reduced axis, lane by lane; its partials are left in lane 0.
  void emit_lane_major_block(llvm::Value* block_index,
                             const std::vector<llvm::Value*>& kept_offsets);
  // The producer expression on `lanes` lanes, each input k loaded by load_input(k, lanes).
  template <typename LoadInput>
  llvm::Value* emit_producer(unsigned lanes, LoadInput load_input);
  llvm::Value* load_along_reduced_axis(std::size_t k, unsigned lanes, llvm::Value* column);
  void emit_stream_prefetch(llvm::Value* column);
  llvm::Value* load_along_kept_axis(std::size_t k, llvm::Value* pointer);
  void emit_consumer(llvm::Value* output, llvm::Value* result,
                     const std::vector<llvm::Value*>& kept_offsets);
  llvm::Value* emit_tree();

  // argmax and argmin (lower_reduce_arg.cpp): one output, or a strip of tiles of outputs.
  void emit_arg_output(llvm::Value* output);
  void emit_arg_tile(llvm::Value* output, unsigned strip);
  // One block of the one reduced axis: the block's best value and its index (i64; kNoIndex when
  // every element was the neutral value).
  ArgPair emit_arg_block(llvm::Value* block_index);
  // Whether `candidate` replaces `current` as the best when it comes later: strictly better, or
  // the first NaN.
  llvm::Value* arg_better(llvm::Value* candidate, llvm::Value* current);
  // The best of two pairs, the smaller index among equal values (and among NaNs).
  ArgPair arg_pick(const ArgPair& a, const ArgPair& b);
  // Block-relative lane indices (i32) to absolute ones (i64), the sentinel kept.
  llvm::Value* absolute_index(llvm::Value* block_start, llvm::Value* relative, unsigned lanes);
  // The tree of each output of the strip; the partials are left in lane 0.
  void emit_tile_tree();
  // Lane l of tile `sub` of the strip: V accumulators, one per output of that tile (in the
  // lane-major walk, l is a slot of its stack of lanes).
  llvm::Value* tile_lane_pointer(llvm::Value* lane, llvm::Value* sub) {
    llvm::Value* row = builder_.CreateMul(lane, index(static_cast<std::int64_t>(strip_) * lanes_));
    return builder_.CreateGEP(memory_type(accumulator()), tile_lanes_memory_,
                              builder_.CreateAdd(row, builder_.CreateMul(sub, index(lanes_))));
  }
  llvm::Value* load_tile_lane(llvm::Value* lane, llvm::Value* sub);
  void store_tile_lane(llvm::Value* lane, llvm::Value* sub, llvm::Value* value);
  // Lanes alloca <-> registers (bool lanes are i8 in memory).
  llvm::Value* load_lanes();
  void store_lanes(llvm::Value* value);
  // Lanes [lane, lane + width) of the lanes in memory combined with `value` (width lanes), only
  // those `mask` sets when it is given.
  void combine_into_lanes(llvm::Value* lane, unsigned width, llvm::Value* value, llvm::Value* mask = nullptr);

  const ReducePlan& plan_;
  ir::Op combine_;
  unsigned lanes_;
  // Lanes of one native vector of the accumulator (at most lanes_): the width of a row piece's
  // tail (emit_row_piece), masked to the row (tail_mask_ while it is emitted) when no producer
  // input is strided.
  unsigned native_lanes_ = 1;
  bool tail_maskable_ = false;
  llvm::Value* tail_mask_ = nullptr;

  llvm::Value* kept_rank_ = nullptr;
  llvm::Value* kept_shape_ = nullptr;
  llvm::Value* reduced_rank_ = nullptr;
  llvm::Value* reduced_shape_ = nullptr;
  llvm::Value* reduced_count_ = nullptr;
  llvm::Value* block_count_ = nullptr;
  llvm::Value* inner_extent_ = nullptr;
  llvm::Value* strides_ = nullptr;
  llvm::Value* mode_ = nullptr;
  llvm::Value* partials_ = nullptr;
  llvm::Value* lanes_memory_ = nullptr;  // alloca [V x accumulator]
  // vectorize_outputs: alloca [V lanes x kStripTiles tiles x V outputs]; strip_ tiles in use,
  // rows of strip_ x V. The lane-major walk's stack of log2(V) + 1 rows of kWideStripTiles x V
  // fits in it (7 x 64 <= 64 x 16 for 64 lanes, 6 x 64 <= 32 x 16 for 32).
  static constexpr unsigned kStripTiles = 16;
  static constexpr unsigned kWideStripTiles = 64;
  static constexpr std::int64_t kTilePanels = 8;
  llvm::Value* tile_lanes_memory_ = nullptr;
  unsigned strip_ = 1;
  llvm::Value* kept_inner_extent_ = nullptr;
  std::vector<llvm::Value*> reduced_inner_strides_;  // vectorize_outputs: every producer input
  std::vector<llvm::Value*> kept_inner_strides_;
  llvm::Value* reduced_index_ = nullptr;   // alloca i64[kMaxLoopRank]
  std::vector<llvm::Value*> input_bases_;  // producer inputs, then consumer inputs
  std::vector<llvm::Value*> inner_strides_;
  std::vector<llvm::Value*> output_bases_;
  std::vector<ProducerRow> rows_;  // the current row piece, per producer input
};

template <typename Body>
void ReduceLowering::emit_counted_loop(const char* name, llvm::Value* start, llvm::Value* end,
                                 std::int64_t step, Body body) {
  codegen::emit_counted_loop(builder_, function_, name, start, end, step, body);
}

template <typename LoadInput>
llvm::Value* ReduceLowering::emit_producer(unsigned lanes, LoadInput load_input) {
  const LoopPlan& producer = plan_.producer;
  ElementwiseEmitter emitter(builder_, module_, lanes);
  std::vector<llvm::Value*> values(producer.nodes.size(), nullptr);
  for (std::size_t n = 0; n < producer.nodes.size(); ++n) {
    const LoopPlanNode& node = producer.nodes[n];
    if (node.op == ir::Op::input) {
      values[n] = load_input(static_cast<std::size_t>(node.input_index), lanes);
    } else if (node.op == ir::Op::constant) {
      values[n] = emitter.constant(node.dtype, node.constant);
    } else {
      std::vector<llvm::Value*> operands;
      for (int operand : node.operands) operands.push_back(values[operand]);
      values[n] =
          emitter.emit(node.op, node.dtype, producer.nodes[node.operands.back()].dtype, operands);
    }
  }
  llvm::Value* element = values[producer.outputs.front()];
  if (plan_.input_dtype == accumulator()) return element;
  llvm::Value* operands[] = {element};
  return emitter.emit(ir::Op::cast, accumulator(), plan_.input_dtype, operands);
}

}  // namespace tensorjit::codegen::reduce_lowering
