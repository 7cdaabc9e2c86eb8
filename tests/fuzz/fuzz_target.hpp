// A fuzz target: a function of arbitrary bytes that must never crash, hang, leak or read out of
// bounds. Throwing tensorjit::Error is an allowed outcome (the input was refused); any other
// exception, a failed TJ_FUZZ_REQUIRE, or a sanitizer report is a finding.
//
// Each target file defines its function with TJ_FUZZ_TARGET(name), which is built two ways:
//   - with -DTENSORJIT_FUZZ=ON (clang, scripts/fuzz.sh): each target is its own coverage-guided
//     libFuzzer binary, fuzz_<name>, under ASan+UBSan;
//   - otherwise the targets register in one table, and the `tests_fuzz` suite replays each
//     target's seed corpus (tests/fuzz/corpus/<name>/) and a fixed set of mutations of it, so
//     every test run, and the ASan+UBSan tree, runs them a bounded number of times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include <tensorjit/error.hpp>

namespace tensorjit::fuzz {

using Bytes = std::span<const std::uint8_t>;
using TargetFunction = void (*)(Bytes);

struct Target {
  std::string name;
  TargetFunction function;
};

// The targets linked into this binary (replay builds only).
std::vector<Target>& targets();
bool register_target(std::string name, TargetFunction function);

// Runs `function` on `bytes`, treating tensorjit::Error as a refusal. Returns whether the
// input was accepted.
inline bool run_target(TargetFunction function, Bytes bytes) {
  try {
    function(bytes);
    return true;
  } catch (const tensorjit::Error&) {
    return false;
  }
}

}  // namespace tensorjit::fuzz

// A property every accepted input must have; its failure is a finding (abort, which both builds
// report with the input).
#define TJ_FUZZ_REQUIRE(condition)                                                               \
  do {                                                                                           \
    if (!(condition)) {                                                                          \
      std::fprintf(stderr, "fuzz target property failed: %s (%s:%d)\n", #condition, __FILE__,   \
                   __LINE__);                                                                    \
      std::abort();                                                                              \
    }                                                                                            \
  } while (false)

#ifdef TENSORJIT_LIBFUZZER
#define TJ_FUZZ_TARGET(name)                                                                   \
  static void fuzz_##name(tensorjit::fuzz::Bytes bytes);                                       \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {          \
    tensorjit::fuzz::run_target(fuzz_##name, {data, size});                                   \
    return 0;                                                                                  \
  }                                                                                            \
  static void fuzz_##name(tensorjit::fuzz::Bytes bytes)
#else
#define TJ_FUZZ_TARGET(name)                                                                   \
  static void fuzz_##name(tensorjit::fuzz::Bytes bytes);                                       \
  [[maybe_unused]] static const bool fuzz_registered_##name =                                  \
      tensorjit::fuzz::register_target(#name, fuzz_##name);                                   \
  static void fuzz_##name(tensorjit::fuzz::Bytes bytes)
#endif
