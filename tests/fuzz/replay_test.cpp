// Replays every fuzz target's seed corpus and a fixed set of mutations of each seed, so that every
// test run (and the ASan+UBSan tree) runs the targets a bounded number of times; scripts/fuzz.sh
// runs the same targets under libFuzzer for as long as asked.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "mutations.hpp"

namespace fuzz = tensorjit::fuzz;

namespace {

constexpr int kMutantsPerSeed = 1000;

std::vector<std::filesystem::path> seeds_of(const std::string& target) {
  std::vector<std::filesystem::path> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TJ_FUZZ_CORPUS_DIR) / target))
    seeds.push_back(entry.path());
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("every fuzz target accepts its seeds and survives their mutations") {
  REQUIRE(fuzz::targets().size() == 5);
  for (const fuzz::Target& target : fuzz::targets()) {
    CAPTURE(target.name);
    const auto seeds = seeds_of(target.name);
    REQUIRE(!seeds.empty());
    int accepted_mutants = 0;
    for (const auto& seed_path : seeds) {
      CAPTURE(seed_path.filename().string());
      const std::vector<std::uint8_t> seed = read_bytes(seed_path);
      // The corpus holds valid inputs: a seed that is refused explores nothing past the refusal.
      CHECK(fuzz::run_target(target.function, seed));
      std::mt19937_64 random(std::hash<std::string>{}(target.name + "/" + seed_path.filename().string()));
      for (int mutant = 0; mutant < kMutantsPerSeed; ++mutant) {
        CAPTURE(mutant);
        accepted_mutants += fuzz::run_target(target.function, fuzz::mutate(seed, random));
      }
    }
    MESSAGE(target.name << ": " << seeds.size() << " seeds, " << seeds.size() * kMutantsPerSeed
                        << " mutants, " << accepted_mutants << " accepted");
  }
}
