// The loop nest of a fused elementwise kernel (loop_kernel.hpp): defines
//   void <symbol>(const LoopArgs* args, i64 begin, i64 end)
// in a module. `begin` is decomposed into a multi-index once; then each row piece runs an inner
// loop of `unroll` vectors of `lanes` lanes per iteration (interleaved for long bodies, below),
// a loop of single vectors, and a scalar tail that emits the same per-lane instructions (so every
// element gets the same bits wherever the split or the row boundary falls). A masked vector tail
// (llvm.masked.load/store, AVX-512 k-masks) was measured 2-3.5x slower than this scalar tail on
// rows of 7 to 15 f32 on the Zen 5 host (bench/elementwise/w1_peers --row R), so the tail stays
// scalar. The outer axes advance as an odometer that adds each input's strides to its row
// offset. All index arithmetic is i64.
#pragma once

#include <string>

#include <llvm/IR/Module.h>

#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

struct LoopShape {
  unsigned lanes = 8;   // vector_bits / bits of the kernel's widest element type
  unsigned unroll = 4;  // vectors per iteration of the main loop
  // The main loop's vectors are emitted as one value of lanes * unroll lanes, which LLVM splits
  // into `unroll` adjacent instructions per operation: the registers' chains interleaved.
  bool interleaved = false;
};

// The lanes and unroll for `plan` at `vector_bits`: every value of the kernel is a vector of the
// same lane count, sized so that the widest type fills one register of the width, and the main
// loop takes 4 of them. Kernels with a long body per vector (a vector-math function: tens of
// instructions per vector; per-lane integer division) take them interleaved: four copies of such
// a body one after the other fill the out-of-order window with one long dependency chain each,
// while four registers' operations side by side keep the FP pipes busy (gelu_tanh 25% faster in
// cache; docs/loop_kernels.md, "Choices and measurements").
LoopShape choose_loop_shape(const LoopPlan& plan, int vector_bits);

void build_loop_kernel(llvm::Module& module, const LoopPlan& plan, const std::string& symbol,
                       int vector_bits);

}  // namespace tensorjit::codegen
