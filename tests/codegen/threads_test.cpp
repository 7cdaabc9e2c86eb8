#include <doctest/doctest.h>

#include <barrier>
#include <thread>
#include <vector>

#include <tensorjit/codegen/jit.hpp>

#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

TEST_CASE("8 threads compiling the same and different keys at once: each key compiles once") {
  constexpr int kThreads = 8;
  constexpr int kDistinctKeys = 4;  // threads t and t + 4 share a key
  codegen::Jit jit;
  const int bits = jit.target().vector_bits;
  const auto before = codegen::compile_count();
  std::barrier start(kThreads);
  std::vector<codegen::KernelHandle> kernels(kThreads);
  std::vector<std::vector<float>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int key = t % kDistinctKeys;
      start.arrive_and_wait();
      // Every thread also asks for one key all threads share.
      auto shared =
          jit.get_or_compile({"threads/shared"}, "shared", multiply_add_builder("shared", bits));
      kernels[t] = jit.get_or_compile({"threads/" + std::to_string(key)}, "kernel",
                                      multiply_add_builder("kernel", bits));
      results[t] = run_multiply_add(*kernels[t], 777, static_cast<unsigned>(key));
      run_multiply_add(*shared, 64);
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(codegen::compile_count() == before + kDistinctKeys + 1);
  CHECK(jit.stats().compiles == kDistinctKeys + 1);
  CHECK(jit.stats().memory_hits == 2 * kThreads - (kDistinctKeys + 1));
  for (int t = 0; t < kThreads; ++t) {
    CAPTURE(t);
    CHECK(kernels[t] == kernels[(t + kDistinctKeys) % kThreads]);
    CHECK(same_bits(results[t],
                    expected_multiply_add(777, static_cast<unsigned>(t % kDistinctKeys))));
  }
}

TEST_CASE("several Jit instances compile concurrently") {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> correct(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      codegen::Jit jit(options_with_width(codegen::kVectorBitsChoices[t % 3]));
      for (int round = 0; round < 3; ++round) {
        auto kernel = jit.get_or_compile({"instances/" + std::to_string(round)}, "kernel",
                                         multiply_add_builder("kernel", jit.target().vector_bits));
        correct[t] += same_bits(run_multiply_add(*kernel, 100), expected_multiply_add(100));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) CHECK(correct[t] == 3);
}
