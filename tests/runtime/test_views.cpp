#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <optional>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {
tj::Tensor grid() { return tj::arange(0, 12, 1, tj::i32).reshape({3, 4}); }
using ints = std::vector<std::int32_t>;
}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("reshape infers one -1 and keeps the buffer") {
  auto g = grid();
  g.eval();
  auto r = g.reshape({2, -1});
  CHECK(r.shape() == tj::Shape{2, 6});
  CHECK(r.data() == g.data());
  CHECK(r.to_vector<std::int32_t>() == ints{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK_THROWS_AS(g.reshape({-1, -1}), tj::Error);
  CHECK_THROWS_AS(g.reshape({5, -1}), tj::Error);
  CHECK_THROWS_AS(g.reshape({13}), tj::Error);
}

TEST_CASE("permute and transpose change strides, not data") {
  auto g = grid();
  g.eval();
  auto t = g.transpose();
  CHECK(t.shape() == tj::Shape{4, 3});
  CHECK(t.strides() == tj::Shape{1, 4});
  CHECK(t.data() == g.data());
  CHECK(t.to_vector<std::int32_t>() == ints{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  auto p = tj::arange(0, 24, 1, tj::i32).reshape({2, 3, 4}).permute({2, 0, 1});
  CHECK(p.shape() == tj::Shape{4, 2, 3});
  CHECK(p.at<std::int32_t>({3, 1, 2}) == 1 * 12 + 2 * 4 + 3);
  CHECK(tj::arange(0, 24, 1, tj::i32).reshape({2, 3, 4}).transpose(0, 2).shape() == tj::Shape{4, 3, 2});
}

TEST_CASE("slice with positive and negative steps, clamped bounds") {
  auto g = grid();
  CHECK(g.slice(1, 1, 3).to_vector<std::int32_t>() == ints{1, 2, 5, 6, 9, 10});
  CHECK(g.slice(1, std::nullopt, std::nullopt, -1).to_vector<std::int32_t>() ==
        ints{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  CHECK(g.slice(0, -1, std::nullopt, -2).to_vector<std::int32_t>() == ints{8, 9, 10, 11, 0, 1, 2, 3});
  CHECK(g.slice(1, 3, 0, -2).to_vector<std::int32_t>() == ints{3, 1, 7, 5, 11, 9});
  CHECK(g.slice(1, -100, 100).shape() == tj::Shape{3, 4});
  CHECK(g.slice(1, 2, 2).shape() == tj::Shape{3, 0});
  CHECK(g.slice(1, 3, 1).shape() == tj::Shape{3, 0});
  CHECK(g.slice(0, 0, 3, 5).shape() == tj::Shape{1, 4});
  CHECK_THROWS_AS(g.slice(1, 0, 2, 0), tj::Error);
  CHECK_THROWS_AS(g.slice(2, 0, 2), tj::Error);
  g.eval();
  auto s = g.slice(1, std::nullopt, std::nullopt, -1);
  CHECK(s.strides() == tj::Shape{4, -1});
}

TEST_CASE("slice at the int64 extremes matches numpy") {
  // numpy's np.arange(5)[start:stop:step] for each row (Python's range(5)[...] gives the same).
  constexpr std::int64_t kMax = INT64_MAX, kMin = INT64_MIN;
  using bound = std::optional<std::int64_t>;
  struct Case {
    bound start, stop;
    std::int64_t step;
    std::vector<std::int64_t> numpy;
  };
  const std::vector<Case> cases = {
      {0, 5, kMax, {0}},
      {std::nullopt, std::nullopt, kMax, {0}},
      {4, std::nullopt, -kMax, {4}},
      {std::nullopt, std::nullopt, -kMax, {4}},
      {std::nullopt, std::nullopt, kMin, {4}},
      {kMin, kMax, 1, {0, 1, 2, 3, 4}},
      {kMax, kMin, -1, {4, 3, 2, 1, 0}},
      {kMin, kMax, kMax, {0}},
      {kMax, kMin, kMin, {4}},
      {kMax, kMin, -kMax, {4}},
      {2, kMax, 2, {2, 4}},
      {kMin, 3, 1, {0, 1, 2}},
      {-1, kMin, -2, {4, 2, 0}},
      {kMax, std::nullopt, -1, {4, 3, 2, 1, 0}},
      {kMin, std::nullopt, 1, {0, 1, 2, 3, 4}},
      {3, kMin, kMin, {3}},
      {1, kMax, kMax - 1, {1}},
      {0, 0, kMax, {}},
      {4, 0, -kMax, {4}},
  };
  auto x = tj::arange(5);
  for (const auto& c : cases) {
    CAPTURE(c.step);
    auto s = x.slice(0, c.start, c.stop, c.step);
    CHECK(s.shape() == tj::Shape{static_cast<std::int64_t>(c.numpy.size())});
    CHECK(s.to_vector<std::int64_t>() == c.numpy);
  }
}

TEST_CASE("flip, squeeze, unsqueeze, expand") {
  auto g = grid();
  CHECK(g.flip(0).to_vector<std::int32_t>() == ints{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3});
  CHECK(g.flip(-1).flip(-1).to_vector<std::int32_t>() == g.to_vector<std::int32_t>());
  auto u = g.unsqueeze(1);
  CHECK(u.shape() == tj::Shape{3, 1, 4});
  CHECK(u.squeeze(1).shape() == tj::Shape{3, 4});
  CHECK(u.unsqueeze(0).squeeze().shape() == tj::Shape{3, 4});
  CHECK(g.unsqueeze(-1).shape() == tj::Shape{3, 4, 1});
  CHECK_THROWS_AS(g.squeeze(0), tj::Error);
  auto row = tj::tensor({1, 2, 3});
  auto e = row.expand({2, 3});
  CHECK(e.to_vector<std::int32_t>() == ints{1, 2, 3, 1, 2, 3});
  CHECK(e.strides() == tj::Shape{0, 1});
  CHECK(row.unsqueeze(1).expand({-1, 2}).to_vector<std::int32_t>() == ints{1, 1, 2, 2, 3, 3});
  CHECK_THROWS_AS(row.expand({2, 4}), tj::Error);
}

TEST_CASE("contiguous copies only views; copy always copies") {
  auto g = grid();
  g.eval();
  auto t = g.transpose().contiguous();
  CHECK(t.strides() == tj::Shape{3, 1});
  CHECK(t.data() != g.data());
  CHECK(t.to_vector<std::int32_t>() == ints{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(g.contiguous().data() == g.data());
  CHECK(g.copy().data() != g.data());
}

TEST_CASE("from_blob wraps external memory with strides and keeps it alive") {
  std::vector<double> memory(12);
  std::iota(memory.begin(), memory.end(), 0.0);
  bool released = false;
  // A 3x2 view taking every second column, walking the rows backwards.
  tj::Tensor t = tj::from_blob(memory.data() + 8, {3, 2}, {-4, 2}, tj::f64, [&] { released = true; });
  CHECK(t.to_vector<double>() == std::vector<double>{8, 10, 4, 6, 0, 2});
  CHECK(t.data() == memory.data() + 8);
  memory[8] = 100;  // not copied: a read sees the change
  CHECK(t.at<double>({0, 0}) == 100);
  tj::Tensor doubled = t * 2.0;
  t = tj::Tensor();
  CHECK_FALSE(released);  // the lazy product still reads the memory
  CHECK(doubled.to_vector<double>() == std::vector<double>{200, 20, 8, 12, 0, 4});
  CHECK(released);  // evaluated: nothing reads the memory any more
  CHECK_THROWS_AS(tj::from_blob(memory.data(), {2, 2}, {1}, tj::f64), tj::Error);
  CHECK_THROWS_AS(tj::from_blob(nullptr, {2}, {}, tj::f32), tj::Error);
}

TEST_CASE("views of views compose over odd shapes") {
  for (std::int64_t n : {0, 1, 2, 7, 13}) {
    auto x = tj::arange(0, static_cast<double>(n * 3), 1, tj::i64).reshape({n, 3});
    auto y = x.transpose().flip(1).slice(0, std::nullopt, std::nullopt, 2);
    CHECK(y.shape() == tj::Shape{2, n});
    auto values = y.to_vector<std::int64_t>();
    REQUIRE(values.size() == static_cast<std::size_t>(2 * n));
    for (std::int64_t r = 0; r < 2; ++r)
      for (std::int64_t c = 0; c < n; ++c) CHECK(values[r * n + c] == (n - 1 - c) * 3 + r * 2);
  }
}

}  // TEST_SUITE
