#include <doctest/doctest.h>

#include <thread>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

TEST_SUITE("runtime") {

TEST_CASE("eight threads evaluate the same and different graphs at once") {
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int round = 0; round < kRounds; ++round) {
        // Even threads share one graph shape; odd ones each build their own (a new constant).
        const float scale = t % 2 == 0 ? 0.5f : 0.25f * static_cast<float>(t + round);
        const std::int64_t n = 1000 + 37 * t;
        auto a = tj::linspace(-1.0, 1.0, n);
        auto b = tj::full({n}, 2.0f);
        auto y = tj::maximum(a * b + 1.0f, 0.0f) * scale;
        auto values = y.to_vector<float>();
        auto inputs = a.to_vector<float>();
        for (std::int64_t i = 0; i < n; ++i) {
          float expected = inputs[i] * 2.0f + 1.0f;
          expected = (expected > 0.0f ? expected : 0.0f) * scale;
          if (values[i] != expected) ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == 0);
}

TEST_CASE("one shared lazy tensor evaluated by several threads") {
  auto x = tj::linspace(0.0, 1.0, 100000) * 3.0f + 1.0f;
  std::vector<std::vector<float>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { seen[t] = x.to_vector<float>(); });
  for (auto& th : threads) th.join();
  for (int t = 1; t < 4; ++t) CHECK(seen[t] == seen[0]);
}

}  // TEST_SUITE
