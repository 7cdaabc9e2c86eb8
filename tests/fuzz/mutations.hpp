// Deterministic mutations of a seed input, for the replay suite: the edits a fuzzer starts with
// (bit flips, boundary values, inserted, deleted and repeated bytes, truncation, boundary
// integers over length and offset fields), 1 to 4 of them per mutant, from a seeded generator, so
// a failure names a reproducible (seed file, mutant number).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tensorjit::fuzz {

std::vector<std::uint8_t> mutate(const std::vector<std::uint8_t>& seed, std::mt19937_64& random);

}  // namespace tensorjit::fuzz
