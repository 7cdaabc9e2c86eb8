// Random numbers (random.hpp): the Philox mapping of docs/contracts.md (contract 12), the same
// bits whichever graph the values are fused into (and, through ctest's reruns of the "JIT"
// cases, at every width and thread count), the JIT against the interpreter, moments and
// chi-square tests of the distributions, and keys as kernel arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <doctest/doctest.h>

#include <tensorjit/ir/philox.hpp>
#include <tensorjit/tensorjit.hpp>

#include "jit_oracle.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;

namespace {

std::uint64_t compiles() { return tj::jit_statistics().compiles; }

std::int64_t key_bits(const tj::Key& k) {
  return static_cast<std::int64_t>((std::uint64_t{k.words[1]} << 32) | k.words[0]);
}

// The JIT'd plan of these tensors against the interpreter, bit for bit.
void check_exact(const std::vector<tj::Tensor>& tensors) {
  tj::ir::Graph graph;
  for (const auto& t : tensors) graph.outputs.push_back(tj::detail::node_of(t, "test"));
  tj::testing::check_against_interpreter(graph);
}

// Pearson's chi-square of `counts` against equal expectations.
double chi_square(const std::vector<std::int64_t>& counts, double expected) {
  double sum = 0;
  for (auto count : counts) sum += (static_cast<double>(count) - expected) * (static_cast<double>(count) - expected) / expected;
  return sum;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

}  // namespace

TEST_CASE("random JIT: random_bits(key(0), {4}) is Random123's first known answer, element i word i % 4 of block i / 4") {
  const auto bits = tj::random_bits(tj::key(0), {4}).to_vector<std::int32_t>();
  const std::vector<std::uint32_t> expected{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  for (std::size_t i = 0; i < 4; ++i) CHECK(static_cast<std::uint32_t>(bits[i]) == expected[i]);
  CHECK(tj::key(0x123456789abcdef0).words == std::array<std::uint32_t, 2>{0x9abcdef0, 0x12345678});
  // Odd sizes, past one vector and one thread's share, in several shapes of the same elements.
  const tj::Key k = tj::key(0x5eed);
  for (const tj::Shape& shape : {tj::Shape{}, tj::Shape{1}, tj::Shape{7}, tj::Shape{3, 5, 7}, tj::Shape{100003}, tj::Shape{1, 300007}}) {
    const auto values = tj::random_bits(k, shape).to_vector<std::int32_t>();
    bool all_equal = true;
    for (std::size_t i = 0; i < values.size(); ++i)
      all_equal = all_equal && values[i] == tj::ir::philox_word(key_bits(k), static_cast<std::int64_t>(i));
    CHECK(all_equal);
  }
}

TEST_CASE("random JIT: the same bits whichever graph the values are fused into") {
  const tj::Key k = tj::key(42);
  const std::int64_t n = 1000037;  // odd, several threads' shares
  tj::Tensor bits = tj::random_bits(k, {n});
  tj::eval({bits});
  const auto stored = bits.to_vector<std::int32_t>();
  // Fused into a loop with other work, under views that move the first element off a block
  // boundary (the kernel's per-lane path) and onto one, reversed, and transposed.
  tj::Tensor fresh = tj::random_bits(k, {n});
  auto matches = [&](const tj::Tensor& fused, auto position) {
    const auto values = fused.to_vector<std::int32_t>();
    bool all = true;
    for (std::size_t i = 0; i < values.size(); ++i) all = all && values[i] == stored[position(static_cast<std::int64_t>(i))];
    return all;
  };
  CHECK(matches(fresh ^ tj::scalar<std::int32_t>(0), [](std::int64_t i) { return i; }));
  CHECK(matches(fresh.slice(0, 1, n) + 0, [](std::int64_t i) { return i + 1; }));
  CHECK(matches(fresh.slice(0, 4, n) + 0, [](std::int64_t i) { return i + 4; }));
  CHECK(matches(fresh.flip(0) + 0, [&](std::int64_t i) { return n - 1 - i; }));
  const std::int64_t rows = 997, columns = 1003;
  tj::Tensor grid = tj::random_bits(k, {rows, columns});
  CHECK(matches(grid.transpose(0, 1) + 0, [&](std::int64_t i) { return (i % rows) * columns + i / rows; }));
  // Reduced: the sum of the fused uniform is the sum of the stored one, bit for bit.
  tj::Tensor u = tj::uniform(k, {n});
  tj::eval({u});
  CHECK(tj::uniform(k, {n}).sum().item<float>() == u.sum().item<float>());
  // x * (uniform > p): dropout's mask fused with its use.
  const tj::Tensor x = tj::arange(0, static_cast<double>(n), 1, tj::f32);
  const auto masked = (x * (tj::uniform(k, {n}) > 0.3f)).to_vector<float>();
  const auto stored_u = u.to_vector<float>();
  bool all = true;
  for (std::int64_t i = 0; i < n; ++i) all = all && masked[static_cast<std::size_t>(i)] == (stored_u[static_cast<std::size_t>(i)] > 0.3f ? static_cast<float>(i) : 0.0f);
  CHECK(all);
}

TEST_CASE("random JIT: every draw against the interpreter") {
  const tj::Key k = tj::key(7);
  const tj::Shape shape{3, 1001};
  const tj::Tensor x = tj::uniform(tj::split(k, 1)[0], shape, -2, 2);
  check_exact({tj::random_bits(k, shape), tj::uniform(k, shape), tj::uniform(k, shape, -1, 3, tj::f64),
               tj::randint(k, shape, -5, 12), tj::randint(k, shape, 0, std::int64_t{1} << 32),
               tj::randint(k, shape, -100, 100, tj::i32), tj::bernoulli(k, 0.25, shape), tj::dropout(x, 0.5, k)});
  // normal's logarithm and cosine are vector math: within their bounds of the interpreter's libm.
  for (tj::DType dtype : {tj::f32, tj::f64}) {
    const tj::Tensor z = tj::normal(k, shape, 1, 2, dtype);
    const auto expected = tj::ir::interpret(tj::ir::Graph{{tj::detail::node_of(z, "test")}}).at(0);
    const auto got = z.to_vector<double>();
    tj::Tensor reference = tj::from_blob(expected.buffer->data(), shape, {}, dtype, [buffer = expected.buffer] {});
    const auto want = reference.to_vector<double>();
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]) / (1 + std::abs(want[i])));
    CHECK(worst < (dtype == tj::f32 ? 2e-6 : 1e-14));
  }
}

TEST_CASE("random: uniform and normal have their moments and pass a chi-square test") {
  const std::int64_t n = 1 << 22;
  const tj::Key k = tj::key(2026);
  // 1000 bins: chi-square with 999 degrees of freedom has mean 999 and sd 44.7; 1200 is 4.5 sd.
  constexpr int kBins = 1000;
  const double expected = static_cast<double>(n) / kBins;
  for (tj::DType dtype : {tj::f32, tj::f64}) {
    INFO(tj::dtype_name(dtype));
    const auto u = tj::uniform(k, {n}, 0, 1, dtype).to_vector<double>();
    double sum = 0, squares = 0;
    std::vector<std::int64_t> counts(kBins, 0);
    for (double v : u) {
      REQUIRE((v >= 0 && v < 1));
      sum += v;
      squares += v * v;
      ++counts[static_cast<std::size_t>(v * kBins)];
    }
    const double mean = sum / static_cast<double>(n), variance = squares / static_cast<double>(n) - mean * mean;
    CHECK(std::abs(mean - 0.5) < 5 * std::sqrt(1.0 / 12 / static_cast<double>(n)));
    CHECK(std::abs(variance - 1.0 / 12) < 1e-3);
    CHECK(chi_square(counts, expected) < 1200);

    const auto z = tj::normal(k, {n}, 0, 1, dtype).to_vector<double>();
    sum = squares = 0;
    double cubes = 0, fourths = 0;
    std::fill(counts.begin(), counts.end(), 0);
    for (double v : z) {
      sum += v;
      squares += v * v;
      cubes += v * v * v;
      fourths += v * v * v * v;
      // Equal-probability bins of the normal distribution.
      ++counts[std::min<std::size_t>(kBins - 1, static_cast<std::size_t>(normal_cdf(v) * kBins))];
    }
    const double count = static_cast<double>(n);
    CHECK(std::abs(sum / count) < 5 / std::sqrt(count));
    CHECK(std::abs(squares / count - 1) < 5 * std::sqrt(2 / count));
    CHECK(std::abs(cubes / count) < 5 * std::sqrt(15 / count));
    CHECK(std::abs(fourths / count - 3) < 5 * std::sqrt(96 / count));
    CHECK(chi_square(counts, expected) < 1200);
  }
}

TEST_CASE("random: split keys, randint's range, bernoulli's rate, dropout's scale") {
  const tj::Key k = tj::key(99);
  const auto keys = tj::split(k, 3);
  REQUIRE(keys.size() == 3);
  CHECK(keys[0] != keys[1]);
  CHECK(keys[0] != k);
  const tj::ir::PhiloxCounter block = tj::ir::philox4x32_10({2, 0, 0, 1}, k.words);
  CHECK(keys[2].words == std::array<std::uint32_t, 2>{block[0], block[1]});
  CHECK(tj::split(k, 3) == keys);
  const auto dice = tj::randint(k, {60000}, 1, 7).to_vector<std::int64_t>();
  std::vector<std::int64_t> faces(6, 0);
  for (auto v : dice) {
    REQUIRE((v >= 1 && v <= 6));
    ++faces[static_cast<std::size_t>(v - 1)];
  }
  CHECK(chi_square(faces, 10000) < 25);  // 5 degrees of freedom: p < 0.0002
  const auto coins = tj::bernoulli(k, 0.25, {100000}).to_vector<bool>();
  CHECK(std::abs(static_cast<double>(std::count(coins.begin(), coins.end(), true)) - 25000) < 5 * std::sqrt(18750.0));
  const auto dropped = tj::dropout(tj::ones({100000}), 0.2, k).to_vector<float>();
  for (float v : dropped) REQUIRE((v == 0.0f || v == 1.25f));
  CHECK(tj::dropout(tj::ones({8}), 0, k).to_vector<float>() == std::vector<float>(8, 1.0f));
  CHECK(tj::dropout(tj::ones({8}), 1, k).to_vector<float>() == std::vector<float>(8, 0.0f));
  // permutation: every index once, the order of the bits' stable argsort.
  const auto order = tj::permutation(k, 1001).to_vector<std::int64_t>();
  const auto bits = tj::random_bits(k, {1001}).to_vector<std::int32_t>();
  std::vector<std::int64_t> expected(1001);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::int64_t>(i);
  std::stable_sort(expected.begin(), expected.end(), [&](std::int64_t a, std::int64_t b) {
    return bits[static_cast<std::size_t>(a)] < bits[static_cast<std::size_t>(b)];
  });
  CHECK(order == expected);
  CHECK(tj::permutation(k, 0).size() == 0);
  CHECK_THROWS_AS(tj::randint(k, {2}, 0, (std::int64_t{1} << 32) + 1), tj::Error);
  CHECK_THROWS_AS(tj::bernoulli(k, 1.5, {2}), tj::Error);
  CHECK_THROWS_AS(tj::dropout(tj::ones({2}, tj::i32), 0.5, k), tj::Error);
}

TEST_CASE("random loops: a key that changes every step is a kernel argument, nothing new is compiled") {
  const tj::Tensor x = tj::arange(0, 5000, 1, tj::f32);
  std::vector<tj::Key> keys = tj::split(tj::key(1), 20);
  keys[5] = tj::key(0);  // keys 0 and 1 too: every key is an argument
  keys[6] = tj::key(1);
  std::uint64_t after_warmup = 0;
  for (int step = 0; step < 20; ++step) {
    const tj::Key& k = keys[static_cast<std::size_t>(step)];
    tj::Tensor y = tj::dropout(x, 0.1, k) + tj::normal(k, {5000});
    tj::eval({y});
    if (step == 2) after_warmup = compiles();
  }
  CHECK(compiles() == after_warmup);
}
