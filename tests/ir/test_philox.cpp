// Philox4x32-10 (ir/philox.hpp) against Random123's known answers, and the philox op's mapping of
// an index to a block's word.
#include <array>

#include <tensorjit/ir/philox.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

namespace {

struct KnownAnswer {
  PhiloxCounter counter;
  PhiloxKey key;
  PhiloxCounter expected;
};

// The three "philox4x32 10" lines of Random123's tests/kat_vectors (D. E. Shaw Research,
// https://github.com/DEShawResearch/random123; Copyright 2010-2012, D. E. Shaw Research, under
// its BSD-style license), copied as they stand: counter (4 words), key (2 words), expected output.
//   philox4x32 10 00000000 00000000 00000000 00000000 00000000 00000000   6627e8d5 e169c58d bc57ac4c 9b00dbd8
//   philox4x32 10 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff   408f276d 41c83b0e a20bc7c6 6d5451fd
//   philox4x32 10 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0   d16cfe09 94fdcceb 5001e420 24126ea1
constexpr std::array<KnownAnswer, 3> kKnownAnswers{{
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000}, {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}};

NodePtr key_of(std::int64_t key, const Shape& shape) {
  return make_expand(make_constant(DType::i64, {}, Scalar::of_int(DType::i64, key)), shape);
}

}  // namespace

TEST_CASE("philox4x32_10 gives Random123's known answers") {
  for (const auto& answer : kKnownAnswers) CHECK(philox4x32_10(answer.counter, answer.key) == answer.expected);
  static_assert(philox4x32_10({}, {})[0] == 0x6627e8d5, "the block function is constexpr");
}

TEST_CASE("philox: word index % 4 of the block at index / 4 under the key's low and high words") {
  // random_bits(key(0), {4}) is the first known answer.
  const auto words = evaluate<std::int32_t>(make_binary(Op::philox, key_of(0, {4}), make_iota(DType::i64, 4, 0, 1)));
  for (std::size_t i = 0; i < 4; ++i) CHECK(static_cast<std::uint32_t>(words[i]) == kKnownAnswers[0].expected[i]);
  // The key's low word is key word 0; the index's block fills counter words 0 and 1.
  const std::int64_t key = static_cast<std::int64_t>(0x299f31d0a4093822);
  const std::int64_t index = (std::int64_t{0x05a308d3243f6a88} << 2) | 3;
  const PhiloxCounter block = philox4x32_10({0x243f6a88, 0x05a308d3, 0, 0}, {0xa4093822, 0x299f31d0});
  CHECK(static_cast<std::uint32_t>(philox_word(key, index)) == block[3]);
  // Indices are unsigned: -1 is word 3 of the last block.
  CHECK(static_cast<std::uint32_t>(philox_word(0, -1)) == philox4x32_10({0xffffffff, 0x3fffffff, 0, 0}, {0, 0})[3]);
  CHECK(static_cast<std::uint32_t>(ScalarOp<Op::philox>::apply(key, index)) == block[3]);
}

TEST_CASE("philox: the node takes i64 operands and gives i32") {
  auto node = make_binary(Op::philox, key_of(7, {3}), make_iota(DType::i64, 3, 0, 1));
  CHECK(node->dtype() == DType::i32);
  CHECK_THROWS_AS(make_binary(Op::philox, make_constant(DType::i32, {3}, Scalar::of_int(DType::i32, 1)),
                              make_iota(DType::i32, 3, 0, 1)),
                  tensorjit::Error);
}
