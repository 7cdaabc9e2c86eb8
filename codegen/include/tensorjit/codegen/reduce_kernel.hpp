// Fused reduction kernels: the contract between the fusion plan (ir/passes/fuse_reductions,
// runtime/src/reduce_step.cpp) and the lowering to LLVM IR (codegen/src/lower/lower_reduce.cpp).
// LLVM-free.
//
// A kernel computes one reduction (reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_any,
// reduce_all, argmax, argmin) of a `producer` expression, then a `consumer` expression of its
// result:
//
//   producer: elementwise ops over the reduction's input domain, leaves `input` nodes (the
//             producer inputs) and constants; its one output is the value reduced. With no
//             producer ops it is a single input leaf.
//   consumer: elementwise ops over the result domain, leaves `result` (an input node of the
//             reduction's result dtype standing for its value), the consumer inputs and constants;
//             its outputs are the kernel's outputs (`result` itself may be one of them).
//
// The domains. The reduction's input domain is split by the caller into kept axes (the result's
// axes without keepdims' size-1 axes) and reduced axes, each list in its row-major order, merged
// where the strides allow, at most kMaxLoopRank each (a rank-0 list is passed as [1]). Output
// `o` (row-major over the kept axes) reduces the elements of the reduced axes in row-major order,
// e_0 .. e_{n-1}, in the strict order of ir/reduction_order.hpp whatever the mode: blocks of
// kReductionBlock, virtual lanes, a tree per block, blocks left to right. So any split of the
// outputs, or of the blocks (partial modes below), across threads gives the same bits, and these
// are the interpreter's.
//
// Producer input k is read at inputs[k] + sum_d kept_index_d * strides[k][d]
//                                       + sum_d reduced_index_d * strides[k][kMaxLoopRank + d];
// consumer input k (numbered after the producer inputs) at inputs[k] + sum_d kept_index_d *
// strides[k][d]; output j is written contiguously at outputs[j] + o. Strides are in elements,
// any sign; the producer inputs' access class says how the innermost reduced axis is read.
//
// Two layouts of the work, the same bits. By default each output's elements are walked along the
// innermost reduced axis in vectors of lanes (a row sum). With `vectorize_outputs` (a column sum:
// the innermost kept axis is contiguous, the reduced one is not), tiles of V consecutive outputs
// along the innermost kept axis are reduced together, one vector across the tile per element,
// each output still in its own lanes and blocks; outputs that do not fill a tile, and the partial
// modes, take the default walk.
//
// Partial modes, for few outputs with many elements each (a full sum): mode 1 reduces only the
// blocks [block_begin, block_end) of every output in [begin, end) and stores each block's partial
// (the accumulator dtype, bool as i8) at partials[o * block_count + b], block_count =
// ceil(n / kReductionBlock); mode 2 reads all the partials of the outputs in [begin, end),
// combines them left to right and runs the consumer. Mode 0 does both in one call.
//
// Accumulators: bool and integer sums and products in i64 (wrapping), floats in their dtype,
// max/min in the input dtype (bool max/min are any/all), any/all in bool.
//
// argmax and argmin (one reduced axis, so reduced_rank is 1) are order free: the result (i64) is
// the index of the first extreme, a NaN counting as the extreme (the interpreter's
// index_of_first_extreme). They walk the same blocks and tiles in ONE pass, each lane carrying a
// best value and the index where it was seen; their partials are reduce_partial_bytes each: the
// block's index (i64; INT64_MAX for a block of neutral values only) at byte 0, its value at
// byte 8.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::codegen {

struct ReduceArgs {
  std::int64_t kept_rank;                     // 1..kMaxLoopRank
  std::int64_t kept_shape[kMaxLoopRank];
  std::int64_t reduced_rank;                  // 1..kMaxLoopRank
  std::int64_t reduced_shape[kMaxLoopRank];
  std::int64_t reduced_count;                 // n: the product of reduced_shape
  std::int64_t block_count;                   // ceil(n / kReductionBlock)
  const void* const* inputs;                  // producer inputs, then consumer inputs
  const std::int64_t* input_strides;          // inputs x (2 * kMaxLoopRank): kept, then reduced
  void* const* outputs;                       // one contiguous buffer per consumer output
  std::int64_t mode;                          // 0 whole, 1 write partials, 2 finish from partials
  std::int64_t block_begin;                   // mode 1: the blocks this call reduces
  std::int64_t block_end;
  void* partials;                             // modes 1 and 2: [outputs][block_count]
};

// Reduces outputs [begin, end) of the kept domain.
using ReduceFunction = void(const ReduceArgs* args, std::int64_t begin, std::int64_t end);

struct ReduceKernelSpec {
  ir::Op op = ir::Op::reduce_sum;
  ir::Graph producer;                         // one output: the value reduced
  std::vector<ir::NodePtr> producer_inputs;   // its `input` leaves, in argument order
  std::vector<InnerAccess> producer_access;   // along the innermost reduced axis, one per input
  bool vectorize_outputs = false;             // tiles of outputs (see above)
  std::vector<InnerAccess> producer_kept_access;  // along the innermost kept axis, one per input
  ir::NodePtr result;                         // the `input` leaf standing for the reduced value
  ir::Graph consumer;                         // outputs: the kernel's outputs
  std::vector<ir::NodePtr> consumer_inputs;   // its other `input` leaves, in argument order
};

// The dtype the kernel accumulates `op` of `input_dtype` in (the partials' dtype; for argmax and
// argmin, the dtype of the values its lanes carry).
DType reduce_accumulator_dtype(ir::Op op, DType input_dtype);

// The bytes of one block partial (modes 1 and 2).
std::size_t reduce_partial_bytes(ir::Op op, DType input_dtype);

// argmax or argmin.
bool is_arg_reduction(ir::Op op);

// Whether `op` is a reduction the reduce kernel lowers (every reduction op).
bool is_jit_reduction(ir::Op op);

// Compiles (or finds in the Jit's caches) the kernel; the handle's address is a ReduceFunction.
KernelHandle compile_reduce_kernel(Jit& jit, const ReduceKernelSpec& spec,
                                   const DumpRequest* dump = nullptr);

}  // namespace tensorjit::codegen
