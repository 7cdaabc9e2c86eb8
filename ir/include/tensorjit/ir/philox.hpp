// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC11; Random123's philox.h): the counter-based generator behind tensorjit's random numbers. The
// one scalar definition: the interpreter's `philox` op, the keys of tj::split, and the tests that
// hold the JIT's vector rounds (codegen/src/lower/emit_philox.cpp) to it.
#pragma once

#include <array>
#include <cstdint>

namespace tensorjit::ir {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

inline constexpr std::uint32_t kPhiloxMultiplier0 = 0xD2511F53;
inline constexpr std::uint32_t kPhiloxMultiplier1 = 0xCD9E8D57;
inline constexpr std::uint32_t kPhiloxWeyl0 = 0x9E3779B9;  // the golden ratio
inline constexpr std::uint32_t kPhiloxWeyl1 = 0xBB67AE85;  // sqrt(3) - 1
inline constexpr int kPhiloxRounds = 10;

// Ten rounds, the key bumped by the Weyl constants between rounds: the four words of the block.
constexpr PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      key[0] += kPhiloxWeyl0;
      key[1] += kPhiloxWeyl1;
    }
    const std::uint64_t product0 = std::uint64_t{kPhiloxMultiplier0} * counter[0];
    const std::uint64_t product1 = std::uint64_t{kPhiloxMultiplier1} * counter[2];
    counter = {static_cast<std::uint32_t>(product1 >> 32) ^ counter[1] ^ key[0],
               static_cast<std::uint32_t>(product1),
               static_cast<std::uint32_t>(product0 >> 32) ^ counter[3] ^ key[1],
               static_cast<std::uint32_t>(product0)};
  }
  return counter;
}

// The `philox` op (ops.def): word index % 4 of the block at counter (index / 4 in words 0 and 1,
// 0, 0) under the key (its low 32 bits, then its high 32 bits), as an i32 of the same bits. The
// index is taken as unsigned.
constexpr std::int32_t philox_word(std::int64_t key, std::int64_t index) {
  const auto bits = static_cast<std::uint64_t>(index);
  const auto key_bits = static_cast<std::uint64_t>(key);
  const std::uint64_t block = bits >> 2;
  const PhiloxCounter words = philox4x32_10(
      {static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), 0, 0},
      {static_cast<std::uint32_t>(key_bits), static_cast<std::uint32_t>(key_bits >> 32)});
  return static_cast<std::int32_t>(words[bits & 3]);
}

}  // namespace tensorjit::ir
