// kernels::scatter_add_rows against the sequential loop it must equal bit for bit (scatter_add.hpp):
// f32 sums whose value depends on the order of the adds, every element type, rows of one element
// and long rows, few and many destinations (the counting sort and the comparison sort), strided
// values, 1 to 7 tasks run in reverse order on one thread and on real threads; an index out of
// range reported with nothing written; destinations outside out refused.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "tensorjit/kernels/scatter_add.hpp"
#include "task_runners.hpp"

namespace kernels = tensorjit::kernels;

namespace {

using kernel_tests::reversed;
using kernel_tests::threaded;

struct Case {
  std::int64_t destinations;  // out's rows
  std::int64_t rows;          // source rows
  std::int64_t row_length;
  std::int64_t value_stride;
};

template <typename T> T value_of(std::mt19937_64& rng) {
  const auto pick = static_cast<std::int64_t>(rng() % 81) - 40;
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T kScales[] = {1, T(1e-7), T(1e7), T(0.1)};
    return static_cast<T>(pick) * kScales[rng() % 4];
  } else {
    return static_cast<T>(pick * (rng() % 3 == 0 ? 100000000 : 1));
  }
}

template <typename T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T, typename Index>
void check_case(const Case& c, kernels::ScatterElement element, std::mt19937_64& rng) {
  CAPTURE(c.destinations);
  CAPTURE(c.rows);
  CAPTURE(c.row_length);
  CAPTURE(c.value_stride);
  const std::int64_t out_elements = c.destinations * c.row_length;
  std::vector<T> base(static_cast<std::size_t>(out_elements));
  for (auto& v : base) v = value_of<T>(rng);
  std::vector<T> values(static_cast<std::size_t>(c.rows * c.row_length * c.value_stride));
  for (auto& v : values) v = value_of<T>(rng);
  // A few destinations get most rows: long buckets whose order matters.
  std::vector<Index> indices(static_cast<std::size_t>(c.rows));
  for (auto& index : indices) {
    const auto k = static_cast<std::int64_t>(rng() % 4 == 0 ? rng() % c.destinations : rng() % 3 % c.destinations);
    index = static_cast<Index>(rng() % 2 ? k : k - c.destinations);
  }
  std::vector<std::int64_t> value_offsets, index_offsets, destination_offsets;
  for (std::int64_t r = 0; r < c.rows; ++r) {
    value_offsets.push_back(r * c.row_length * c.value_stride);
    index_offsets.push_back(r);
    destination_offsets.push_back(0);
  }
  std::vector<T> expected = base;
  for (std::int64_t r = 0; r < c.rows; ++r) {
    const std::int64_t k = indices[r] < 0 ? indices[r] + c.destinations : indices[r];
    for (std::int64_t j = 0; j < c.row_length; ++j)
      expected[k * c.row_length + j] = add(expected[k * c.row_length + j], values[value_offsets[r] + j * c.value_stride]);
  }
  for (auto run : {static_cast<decltype(&reversed)>(nullptr), &reversed, &threaded}) {
    for (int threads : {1, 2, 3, 7}) {
      CAPTURE(threads);
      std::vector<T> out = base;
      kernels::ScatterAddArgs args;
      args.element = element;
      args.rows = c.rows;
      args.row_length = c.row_length;
      args.values = values.data();
      args.value_offsets = value_offsets.data();
      args.value_stride = c.value_stride;
      args.indices = indices.data();
      args.indices_are_i64 = sizeof(Index) == 8;
      args.index_offsets = index_offsets.data();
      args.destination_offsets = destination_offsets.data();
      args.extent = c.destinations;
      args.axis_stride = c.row_length;
      args.out = out.data();
      args.out_elements = out_elements;
      args.parallel_for = {run, nullptr, threads};
      const kernels::ScatterFault fault = kernels::scatter_add_rows(args);
      CHECK(fault.row == -1);
      CHECK(std::memcmp(out.data(), expected.data(), out.size() * sizeof(T)) == 0);
    }
  }
}

}  // namespace

TEST_CASE("scatter_add_rows: the sequential loop's bits at any task count and order") {
  std::mt19937_64 rng(22);
  const Case cases[] = {{1, 1, 1, 1},       {5, 40, 1, 1},      {3, 100000, 1, 1},  {40, 3000, 37, 1},
                        {1000, 4096, 384, 1}, {7, 50, 16, 3},   {200000, 30, 1, 1}, {100000, 70000, 2, 2}};
  for (const Case& c : cases) {
    check_case<float, std::int64_t>(c, kernels::ScatterElement::f32, rng);
    check_case<double, std::int32_t>(c, kernels::ScatterElement::f64, rng);
    check_case<std::int32_t, std::int64_t>(c, kernels::ScatterElement::i32, rng);
    check_case<std::int64_t, std::int32_t>(c, kernels::ScatterElement::i64, rng);
  }
}

TEST_CASE("scatter_add_rows: an index out of range is reported and nothing is written") {
  std::vector<float> out(6, 1.f), values(6, 2.f);
  const std::vector<std::int64_t> indices = {0, 2, -3, 3, -4, 1};
  std::vector<std::int64_t> offsets = {0, 1, 2, 3, 4, 5}, zeros(6, 0);
  kernels::ScatterAddArgs args;
  args.rows = 6;
  args.values = values.data();
  args.value_offsets = offsets.data();
  args.indices = indices.data();
  args.index_offsets = offsets.data();
  args.destination_offsets = zeros.data();
  args.extent = 3;
  args.axis_stride = 1;
  args.out = out.data();
  args.out_elements = 3;
  const kernels::ScatterFault fault = kernels::scatter_add_rows(args);
  CHECK(fault.row == 3);
  CHECK(fault.index == 3);
  CHECK(out == std::vector<float>(6, 1.f));
  // A destination outside out is a caller's bug: refused, not written.
  args.extent = 6;
  args.rows = 4;
  CHECK_THROWS_AS(kernels::scatter_add_rows(args), std::invalid_argument);
  CHECK(out == std::vector<float>(6, 1.f));
  args.row_length = 0;
  CHECK_THROWS_AS(kernels::scatter_add_rows(args), std::invalid_argument);
}
