// kernels::sort_row against std::stable_sort with the order's comparator (sort.hpp): every
// element type, both directions, lengths around the small-row and selection thresholds, kept
// prefixes (topk) of every size class, strided and reversed inputs, duplicates, NaN, infinities
// and both zeros; the values keep their own bits. The radix sort's split (radix_sort.hpp) with
// leaves small enough to cross every level, on data whose keys share their high digits or bunch in
// a few buckets, with its tasks run in order, in reverse and on threads of their own.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "tensorjit/kernels/sort.hpp"
#include "task_runners.hpp"

namespace kernels = tensorjit::kernels;

namespace {

template <typename T> bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

// The positions in the order (the interpreter's definition, ir/src/interpreter_order.cpp).
template <typename T> std::vector<std::int64_t> expected_order(const std::vector<T>& row, bool descending) {
  std::vector<std::int64_t> positions(row.size());
  std::iota(positions.begin(), positions.end(), 0);
  std::stable_sort(positions.begin(), positions.end(), [&](std::int64_t a, std::int64_t b) {
    const T x = row[static_cast<std::size_t>(a)], y = row[static_cast<std::size_t>(b)];
    return descending ? (x > y || (is_nan(x) && !is_nan(y))) : (x < y || (is_nan(y) && !is_nan(x)));
  });
  return positions;
}

template <typename T> T random_element(std::mt19937_64& rng) {
  const int pick = static_cast<int>(rng() % 24);
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T specials[] = {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(),
                              std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), T(-0.0),
                              T(0.0)};
    if (pick < 4) return specials[rng() % 6];
    if (pick < 12) return static_cast<T>(static_cast<int>(rng() % 9) - 4) / 2;  // duplicates
    return static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
  } else if constexpr (sizeof(T) == 1) {
    return static_cast<T>(rng() % 2);
  } else {
    if (pick < 2) return pick == 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    if (pick < 12) return static_cast<T>(static_cast<int>(rng() % 9) - 4);
    return static_cast<T>(rng());
  }
}

template <typename T> void check_type(kernels::SortElement element, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  kernels::SortWorkspace workspace;
  for (std::int64_t length : {0, 1, 2, 17, 255, 256, 257, 1000, 4099, 70000}) {
    for (std::int64_t stride : {1, 3, -2}) {
      std::vector<T> storage(static_cast<std::size_t>(std::max<std::int64_t>(length, 1) * std::abs(stride)));
      for (auto& x : storage) x = random_element<T>(rng);
      std::vector<T> row(static_cast<std::size_t>(length));
      const std::int64_t first = stride < 0 ? (length - 1) * -stride : 0;
      for (std::int64_t i = 0; i < length; ++i) row[static_cast<std::size_t>(i)] = storage[static_cast<std::size_t>(first + i * stride)];
      for (bool descending : {false, true}) {
        const auto order = expected_order(row, descending);
        for (std::int64_t count : {length, std::min<std::int64_t>(length, 1), std::min<std::int64_t>(length, 10),
                                   length / 2}) {
          CAPTURE(length);
          CAPTURE(stride);
          CAPTURE(descending);
          CAPTURE(count);
          for (int outputs = 1; outputs <= 3; ++outputs) {  // values, positions, both
            std::vector<T> values(static_cast<std::size_t>(count) * 2);
            std::vector<std::int64_t> positions(static_cast<std::size_t>(count) * 2, -1);
            kernels::SortRowArgs args;
            args.element = element;
            args.descending = descending;
            args.length = length;
            args.count = count;
            args.input = storage.data() + first;
            args.input_stride = stride;
            if (outputs & 1) {
              args.values = values.data();
              args.values_stride = 2;
            }
            if (outputs & 2) {
              args.positions = positions.data();
              args.positions_stride = 2;
            }
            kernels::sort_row(args, workspace);
            for (std::int64_t i = 0; i < count; ++i) {
              const std::int64_t expected = order[static_cast<std::size_t>(i)];
              if (outputs & 2) REQUIRE(positions[static_cast<std::size_t>(2 * i)] == expected);
              if (outputs & 1) {
                const T want = row[static_cast<std::size_t>(expected)], got = values[static_cast<std::size_t>(2 * i)];
                REQUIRE(std::memcmp(&want, &got, sizeof(T)) == 0);  // its own bits, NaN payloads too
              }
            }
          }
        }
      }
    }
  }
}

// The rows the split must get right besides random_element's mix: every key sharing its high
// digits, keys bunched by a float's exponent, many equal keys, and all keys equal.
enum class Spread { mixed, narrow, exponents, few, equal };

template <typename T> T spread_element(Spread spread, std::mt19937_64& rng) {
  switch (spread) {
    case Spread::mixed: return random_element<T>(rng);
    case Spread::narrow: return static_cast<T>(1000 + static_cast<int>(rng() % 700));
    case Spread::exponents:
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::uniform_real_distribution<double>(0, 1)(rng));
      else return static_cast<T>(rng() >> (rng() % 60));
    case Spread::few: return static_cast<T>(static_cast<int>(rng() % 5));
    case Spread::equal: return T(3);
  }
  return T(0);
}

template <typename T> void check_split(kernels::SortElement element, std::uint64_t seed, const std::vector<Spread>& spreads) {
  std::mt19937_64 rng(seed);
  kernels::SortWorkspace workspace;
  int pool_threads = 3;
  for (Spread spread : spreads)
    for (std::int64_t length : {300, 5000, 70000, 300000}) {
      std::vector<T> row(static_cast<std::size_t>(length));
      for (auto& x : row) x = spread_element<T>(spread, rng);
      for (bool descending : {false, true}) {
        const auto order = expected_order(row, descending);
        std::vector<T> ordered;  // the values in that order, their own bits
        for (std::int64_t position : order) ordered.push_back(row[static_cast<std::size_t>(position)]);
        for (std::int64_t leaf : {0, 40, 700})
          for (auto run : {static_cast<decltype(&kernel_tests::reversed)>(nullptr), &kernel_tests::reversed,
                           &kernel_tests::threaded}) {
            CAPTURE(static_cast<int>(spread));
            CAPTURE(length);
            CAPTURE(descending);
            CAPTURE(leaf);
            CAPTURE(run == nullptr ? "serial" : run == &kernel_tests::reversed ? "reversed" : "threaded");
            for (bool with_positions : {true, false}) {  // keys with positions, keys alone
              CAPTURE(with_positions);
              std::vector<T> values(row.size());
              std::vector<std::int64_t> positions(row.size(), -1);
              kernels::SortRowArgs args;
              args.element = element;
              args.descending = descending;
              args.length = length;
              args.count = length;
              args.input = row.data();
              args.values = values.data();
              if (with_positions) args.positions = positions.data();
              args.radix_leaf = leaf;
              args.parallel_for = {run, &pool_threads, run == nullptr ? 1 : pool_threads};
              kernels::sort_row(args, workspace);
              if (with_positions) REQUIRE(positions == order);
              REQUIRE(std::memcmp(values.data(), ordered.data(), ordered.size() * sizeof(T)) == 0);
            }
          }
      }
    }
}

}  // namespace

TEST_CASE("sort_row: the radix sort's split, at every leaf size and on any threads, gives the stable order") {
  const std::vector<Spread> all = {Spread::mixed, Spread::narrow, Spread::exponents, Spread::few, Spread::equal};
  check_split<float>(kernels::SortElement::f32, 11, all);
  check_split<double>(kernels::SortElement::f64, 12, {Spread::mixed, Spread::exponents});
  check_split<std::int64_t>(kernels::SortElement::i64, 13, {Spread::mixed, Spread::exponents});
  check_split<std::int32_t>(kernels::SortElement::i32, 14, {Spread::narrow});
}

TEST_CASE("sort_row: the stable order with NaN last (first descending), every element type and path") {
  check_type<float>(kernels::SortElement::f32, 1);
  check_type<double>(kernels::SortElement::f64, 2);
  check_type<std::int32_t>(kernels::SortElement::i32, 3);
  check_type<std::int64_t>(kernels::SortElement::i64, 4);
  check_type<std::uint8_t>(kernels::SortElement::boolean, 5);
}

TEST_CASE("sort_row: a count outside [0, length] is refused") {
  kernels::SortWorkspace workspace;
  float row[3] = {1, 2, 3};
  kernels::SortRowArgs args;
  args.input = row;
  args.length = 3;
  args.count = 4;
  CHECK_THROWS_AS(kernels::sort_row(args, workspace), std::invalid_argument);
}
