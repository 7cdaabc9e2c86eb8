#include "mutations.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace tensorjit::fuzz {
namespace {

constexpr std::array<std::uint8_t, 8> kInterestingBytes = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-'};
constexpr std::array<std::uint64_t, 9> kInterestingIntegers = {
    0, 1, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, std::uint64_t(1) << 62,
    std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::uint64_t>::max()};

std::size_t position(std::mt19937_64& random, std::size_t size) {
  return size == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, size - 1)(random);
}

void edit(std::vector<std::uint8_t>& bytes, std::mt19937_64& random) {
  const std::size_t at = position(random, bytes.size());
  switch (std::uniform_int_distribution<int>(0, 6)(random)) {
    case 0:  // flip a bit
      if (!bytes.empty()) bytes[at] ^= std::uint8_t(1u << (random() % 8));
      break;
    case 1:  // a boundary byte
      if (!bytes.empty()) bytes[at] = kInterestingBytes[random() % kInterestingBytes.size()];
      break;
    case 2:  // insert a byte
      bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), std::uint8_t(random()));
      break;
    case 3: {  // delete a run
      const std::size_t count = std::min<std::size_t>(bytes.size() - std::min(at, bytes.size()), 1 + random() % 16);
      bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                  bytes.begin() + static_cast<std::ptrdiff_t>(at + count));
      break;
    }
    case 4:  // truncate
      bytes.resize(at);
      break;
    case 5: {  // repeat a run in place
      const std::size_t count = std::min<std::size_t>(bytes.size() - at, 1 + random() % 32);
      const std::vector<std::uint8_t> run(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                          bytes.begin() + static_cast<std::ptrdiff_t>(at + count));
      bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), run.begin(), run.end());
      break;
    }
    case 6: {  // a boundary integer, little-endian, over 4 or 8 bytes (lengths, offsets)
      const int width = random() % 2 == 0 ? 4 : 8;
      const std::uint64_t value = kInterestingIntegers[random() % kInterestingIntegers.size()];
      for (int i = 0; i < width && at + i < bytes.size(); ++i) bytes[at + i] = std::uint8_t(value >> (8 * i));
      break;
    }
  }
}

}  // namespace

std::vector<std::uint8_t> mutate(const std::vector<std::uint8_t>& seed, std::mt19937_64& random) {
  std::vector<std::uint8_t> bytes = seed;
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < edits; ++i) edit(bytes, random);
  return bytes;
}

}  // namespace tensorjit::fuzz
