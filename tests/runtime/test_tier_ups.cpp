// tj::wait_for_tier_ups and JitStatistics::tier_ups: a quick loop kernel used twice is compiled
// again, optimized, and waiting for it returns once that compile is done (docs/codegen.md, "Tiers").
#include <cstdlib>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

// TENSORJIT_TIERED as the runtime reads it: on unless set to 0 (blanks around it ignored).
bool tiers_on() {
  const char* value = std::getenv("TENSORJIT_TIERED");
  if (value == nullptr) return true;
  std::string text(value);
  text.erase(0, text.find_first_not_of(" \t"));
  text.erase(text.find_last_not_of(" \t") + 1);
  return text != "0";
}

}  // namespace

TEST_CASE("wait_for_tier_ups: a quick kernel used twice is optimized by the time it returns") {
  tj::wait_for_tier_ups();  // the tier-ups earlier cases asked for, so that only this one is counted
  const tj::JitStatistics before = tj::jit_statistics();
  // An elementwise chain no other case builds, so its kernel is new to the in-memory cache.
  const tj::Tensor x = tj::tensor({0.25f, 0.5f, 1.5f, -2.0f, 3.0f});
  auto chain = [&] { return tj::trunc(tj::atan(x * 3.0f) * tj::cos(x - 0.125f) * 100.0f) / 7.0f; };
  const std::vector<float> first = chain().to_vector<float>();
  const std::vector<float> second = chain().to_vector<float>();  // its second use asks for the tier-up
  tj::wait_for_tier_ups();
  const tj::JitStatistics after = tj::jit_statistics();
  const std::vector<float> third = chain().to_vector<float>();
  CHECK(first == second);
  CHECK(third == first);  // both tiers give the same bits
  CHECK(after.compiles == before.compiles + (after.disk_hits > before.disk_hits ? 0 : 1));
  if (!tiers_on() || after.disk_hits > before.disk_hits) {
    // Compiled optimized at once, or its optimized object loaded from TENSORJIT_CACHE_DIR (which
    // the suite's reruns share): nothing to tier up.
    CHECK(after.tier_ups == before.tier_ups);
  } else {
    CHECK(after.tier_ups == before.tier_ups + 1);
  }
  tj::wait_for_tier_ups();  // nothing queued: returns at once
  CHECK(tj::jit_statistics().tier_ups == after.tier_ups);
}
