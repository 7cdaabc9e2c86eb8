#include "codegen/src/lower/emit_philox.hpp"

#include <array>
#include <vector>

#include <tensorjit/ir/philox.hpp>

namespace tensorjit::codegen {
namespace {

// The high word of each i64 lane of `product` in its low half, the upper half any bits (only the
// low halves are read again). On vectors a dword shuffle instead of a 64-bit shift: on Intel's
// AVX-512 cores the shift and pmuludq share one port, the shuffle takes the other.
llvm::Value* high_word(llvm::IRBuilder<>& b, llvm::Value* product) {
  auto* lanes = llvm::dyn_cast<llvm::FixedVectorType>(product->getType());
  if (!lanes) return b.CreateLShr(product, b.getInt64(32));
  const unsigned count = lanes->getNumElements();
  llvm::Value* dwords = b.CreateBitCast(product, llvm::FixedVectorType::get(b.getInt32Ty(), 2 * count));
  std::vector<int> odd;
  for (unsigned l = 0; l < count; ++l) odd.insert(odd.end(), {static_cast<int>(2 * l + 1), static_cast<int>(2 * l + 1)});
  return b.CreateBitCast(b.CreateShuffleVector(dwords, odd), lanes);
}

// The four words of the blocks at `block` (i64 lanes: the 64-bit counter in words 0 and 1) under
// `keys`, in the low halves of i64 lanes.
std::array<llvm::Value*, 4> emit_blocks(llvm::IRBuilder<>& b, llvm::Value* block, const PhiloxRoundKeys& keys) {
  llvm::Type* type = block->getType();
  auto constant = [&](std::uint64_t value) { return llvm::ConstantInt::get(type, value); };
  llvm::Value* low = constant(0xFFFFFFFFu);
  llvm::Value* thirty_two = constant(32);
  std::array<llvm::Value*, 4> counter{b.CreateAnd(block, low), b.CreateLShr(block, thirty_two), constant(0), constant(0)};
  for (std::size_t round = 0; round < ir::kPhiloxRounds; ++round) {
    llvm::Value* key0 = keys.low[round];
    llvm::Value* key1 = keys.high[round];
    llvm::Value* product0 = b.CreateMul(b.CreateAnd(counter[0], low), constant(ir::kPhiloxMultiplier0));
    llvm::Value* product1 = b.CreateMul(b.CreateAnd(counter[2], low), constant(ir::kPhiloxMultiplier1));
    counter = {b.CreateXor(b.CreateXor(high_word(b, product1), counter[1]), key0), product1,
               b.CreateXor(b.CreateXor(high_word(b, product0), counter[3]), key1), product0};
  }
  return counter;
}

llvm::Type* words_type(llvm::IRBuilder<>& b, llvm::Type* lanes_like) {
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(lanes_like))
    return llvm::FixedVectorType::get(b.getInt32Ty(), vector->getNumElements());
  return b.getInt32Ty();
}

}  // namespace

PhiloxRoundKeys emit_philox_round_keys(llvm::IRBuilder<>& b, llvm::Value* key, unsigned lanes) {
  if (lanes > 1 && !key->getType()->isVectorTy()) key = b.CreateVectorSplat(lanes, key);
  llvm::Type* type = key->getType();
  PhiloxRoundKeys keys;
  keys.low[0] = key;
  keys.high[0] = b.CreateLShr(key, llvm::ConstantInt::get(type, 32));
  for (std::size_t round = 1; round < ir::kPhiloxRounds; ++round) {
    keys.low[round] = b.CreateAdd(keys.low[round - 1], llvm::ConstantInt::get(type, ir::kPhiloxWeyl0));
    keys.high[round] = b.CreateAdd(keys.high[round - 1], llvm::ConstantInt::get(type, ir::kPhiloxWeyl1));
  }
  return keys;
}

llvm::Value* emit_philox_word(llvm::IRBuilder<>& b, llvm::Value* key, llvm::Value* index) {
  llvm::Type* type = index->getType();
  const auto words = emit_blocks(b, b.CreateLShr(index, llvm::ConstantInt::get(type, 2)),
                                 emit_philox_round_keys(b, key, 1));
  llvm::Value* which = b.CreateAnd(index, llvm::ConstantInt::get(type, 3));
  llvm::Value* word = words[3];
  for (int w = 2; w >= 0; --w)
    word = b.CreateSelect(b.CreateICmpEQ(which, llvm::ConstantInt::get(type, static_cast<std::uint64_t>(w))),
                          words[static_cast<std::size_t>(w)], word);
  return b.CreateTrunc(word, words_type(b, type));
}

llvm::Value* emit_philox_run(llvm::IRBuilder<>& b, const PhiloxRoundKeys& keys, llvm::Value* first, unsigned lanes) {
  const unsigned blocks = lanes / 4;
  std::vector<llvm::Constant*> steps;
  for (unsigned j = 0; j < blocks; ++j) steps.push_back(b.getInt64(j));
  llvm::Value* block = b.CreateAdd(b.CreateVectorSplat(blocks, b.CreateLShr(first, b.getInt64(2))),
                                   llvm::ConstantVector::get(steps));
  const auto words = emit_blocks(b, block, keys);
  llvm::Type* narrow = llvm::FixedVectorType::get(b.getInt32Ty(), blocks);
  std::array<llvm::Value*, 4> narrowed{};
  for (std::size_t w = 0; w < 4; ++w) narrowed[w] = b.CreateTrunc(words[w], narrow);
  std::vector<int> concatenate;
  for (unsigned i = 0; i < 2 * blocks; ++i) concatenate.push_back(static_cast<int>(i));
  llvm::Value* low = b.CreateShuffleVector(narrowed[0], narrowed[1], concatenate);
  llvm::Value* high = b.CreateShuffleVector(narrowed[2], narrowed[3], concatenate);
  // Lane 4j + w takes word w of block j, which sits at w * blocks + j of low ++ high.
  std::vector<int> interleave;
  for (unsigned j = 0; j < blocks; ++j)
    for (unsigned w = 0; w < 4; ++w) interleave.push_back(static_cast<int>(w * blocks + j));
  return b.CreateShuffleVector(low, high, interleave);
}

}  // namespace tensorjit::codegen
