// Philox4x32-10 (ir/philox.hpp) in LLVM IR, on vectors of i64 lanes that each hold one 32-bit word
// in their low half: the round's 32 x 32 -> 64-bit products are then one unsigned multiply of
// 64-bit lanes (x86's pmuludq, which reads only the low halves: 8 products per AVX-512
// instruction), the high word a dword shuffle (a shift on scalars) and the low word the lane itself, whose upper half is
// never read again but through xor into words that are multiplied or truncated, where it drops
// out. As Random123's and JAX's vector Philox, one block per lane.
#pragma once

#include <array>

#include <llvm/IR/IRBuilder.h>

#include <tensorjit/ir/philox.hpp>

namespace tensorjit::codegen {

// A key's two words for each round (bumped by the Weyl constants), in i64 lanes: made once where
// the key is known, outside the loops that draw with it.
struct PhiloxRoundKeys {
  std::array<llvm::Value*, ir::kPhiloxRounds> low{};
  std::array<llvm::Value*, ir::kPhiloxRounds> high{};
};

// The round keys of the i64 `key` (a scalar or a vector), splat to `lanes` lanes when lanes > 1
// and key is a scalar.
PhiloxRoundKeys emit_philox_round_keys(llvm::IRBuilder<>& builder, llvm::Value* key, unsigned lanes);

// The `philox` op on i64 `key` and `index` (scalars or vectors of one lane count): word
// index % 4 of the block at counter (index / 4, 0, 0) under the key, as i32. One block per lane.
llvm::Value* emit_philox_word(llvm::IRBuilder<>& builder, llvm::Value* key, llvm::Value* index);

// The words of `lanes` consecutive indices from `first` (a multiple of 4; an i64 scalar), under
// `keys` (emit_philox_round_keys of a scalar key, at lanes / 4 lanes): lanes / 4 blocks (lanes a
// multiple of 8), whose words are interleaved into a vector of `lanes` i32, word w of block j in
// lane 4j + w. Each block is computed once.
llvm::Value* emit_philox_run(llvm::IRBuilder<>& builder, const PhiloxRoundKeys& keys, llvm::Value* first,
                             unsigned lanes);

}  // namespace tensorjit::codegen
