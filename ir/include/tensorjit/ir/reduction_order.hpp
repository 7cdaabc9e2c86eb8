// The strict reduction order (docs/contracts.md, contract 3): the one definition that the interpreter
// (ir/src/interpreter_reduce.cpp, combine_in_order) computes and the JIT's reduction kernels
// (codegen/src/lower/lower_reduce.cpp) reproduce bit for bit, at any vector width and thread count.
//
// A reduction combines, for each output, its n reduced elements e_0 .. e_{n-1} (row-major order of
// their indices in the logical input) with one operation ⊕ (add, multiply, maximum, minimum,
// logical or / and), in this order:
//
//   1. Blocks. The elements are split into blocks of kReductionBlock consecutive elements (the last
//      block may be shorter): block b holds e_{b*B} .. e_{min(n, (b+1)*B) - 1}.
//   2. Virtual lanes. Within a block, V = reduction_lanes(accumulator bytes) accumulators, each
//      starting at the operation's neutral value (below); element e_i of the block goes to lane
//      (i - b*B) mod V: lane[l] = lane[l] ⊕ e_i, in increasing i. V does not depend on the vector
//      width: at 512 bits a f32 block's 64 lanes are four registers, at 128 bits sixteen.
//   3. A fixed tree: for w = V/2, V/4, ..., 1: lane[l] = lane[l] ⊕ lane[l + w] for l < w. The
//      block's partial is lane[0].
//   4. Blocks in order: total = partial_0 ⊕ partial_1 ⊕ ... left to right; threads may take whole
//      blocks, the partials are combined in this order by one thread.
//   5. No elements (n == 0) give the operation's identity: sum 0, prod 1, any false, all true
//      (max, min, argmax and argmin of nothing are rejected when the node is made).
//
// The neutral values leave every element's bits unchanged (⊕ neutral is exact, also for -0.0
// and NaN): sum -0.0, prod 1, maximum -inf (integers: the lowest value), minimum +inf (the
// highest), or false, and true. So a sum of one -0.0 is -0.0 and a block shorter than V gives the
// same bits as one whose missing lanes did not exist.
//
// Integer and bool sums and products accumulate in i64, which wraps: their result does not depend
// on the order at all, nor do any/all and integer max/min. For floats, max/min differ by order
// only in which of tied -0.0 / 0.0 or which NaN comes out; the order above fixes that too. argmax
// and argmin are order free: the first index of the extreme, a NaN counting as the extreme.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tensorjit::ir {

inline constexpr std::int64_t kReductionBlock = 4096;

// 256 bytes of accumulators: 64 lanes of f32 / i32 / bool, 32 of f64 / i64.
constexpr std::int64_t reduction_lanes(std::size_t accumulator_bytes) {
  return accumulator_bytes >= 8 ? 32 : 64;
}

static_assert(kReductionBlock % reduction_lanes(1) == 0 && kReductionBlock % reduction_lanes(8) == 0,
              "a block holds whole groups of lanes");

}  // namespace tensorjit::ir
