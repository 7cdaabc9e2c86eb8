// The recycling of large result buffers seen through the public API: a loop of evals reuses the
// memory of the result it dropped, the values stay right, and empty_cache() gives it all back.
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

TEST_SUITE("runtime") {

TEST_CASE("a loop of large evals writes into the memory of the result it dropped") {
  const std::int64_t count = (std::int64_t{3} << 20) + 17;  // 12 MiB of f32, an odd length
  auto a = tj::arange(0, static_cast<double>(count), 1, tj::f32);
  auto b = tj::full({count}, 0.5f);
  a.eval();
  b.eval();
  tj::empty_cache();
  const void* previous = nullptr;
  for (int round = 0; round < 3; ++round) {
    auto y = a * b + static_cast<float>(round);
    y.eval();
    if (previous) CHECK(y.data() == previous);
    for (std::int64_t i : {std::int64_t{0}, std::int64_t{1}, count / 2, count - 1})
      CHECK(y.at<float>({i}) == static_cast<float>(i) * 0.5f + static_cast<float>(round));
    previous = y.data();
  }
  CHECK(tj::cached_memory_bytes() >= static_cast<std::size_t>(count) * 4);
  tj::empty_cache();
  CHECK(tj::cached_memory_bytes() == 0);
}

TEST_CASE("a zero-filled creation over recycled memory is still all zeros") {
  const std::int64_t count = std::int64_t{2} << 20;
  {
    auto y = tj::full({count}, 7.0f) * 2.0f;
    y.eval();
  }
  auto z = tj::zeros({count}, tj::f32);
  z.eval();
  CHECK(z.sum().item<float>() == 0.0f);
  CHECK(z.max().item<float>() == 0.0f);
}

}  // TEST_SUITE
