// The interpreter's cumsum, sort and argsort: values worked out by hand along every axis of a small
// tensor, the accumulation dtypes, the strict sequential order of cumsum's float adds, stability,
// NaN, -0.0 and infinities, descending order, a kept prefix (topk), strided inputs, empty axes.
#include <limits>

#include <tensorjit/ir/text.hpp>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

TEST_CASE("interpreter cumsum: each axis of a 2 x 3 tensor, integers and bool in i64") {
  const auto x = input<i32>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(make_cumsum(x, 0)->dtype() == DType::i64);
  CHECK(evaluate<i64>(make_cumsum(x, 0)) == std::vector<i64>{1, 2, 3, 5, 7, 9});
  CHECK(evaluate<i64>(make_cumsum(x, 1)) == std::vector<i64>{1, 3, 6, 4, 9, 15});
  const auto flags = input<bool>({4}, {true, false, true, true});
  CHECK(evaluate<i64>(make_cumsum(flags, 0)) == std::vector<i64>{1, 1, 2, 3});
  const auto big = input<i32>({3}, {kInt32Max, kInt32Max, kInt32Max});
  CHECK(evaluate<i64>(make_cumsum(big, 0)) ==
        std::vector<i64>{kInt32Max, 2 * i64{kInt32Max}, 3 * i64{kInt32Max}});
  const auto wrapping = input<i64>({2}, {kInt64Max, 1});
  CHECK(evaluate<i64>(make_cumsum(wrapping, 0)) == std::vector<i64>{kInt64Max, kInt64Min});
}

TEST_CASE("interpreter cumsum: floats add in strict sequential order, -0.0 and NaN kept") {
  // 1e8 + 1 + 1 - 1e8 in f32: each 1 is lost against 1e8 one at a time, then 0.
  const auto x = input<float>({4}, {1e8f, 1.f, 1.f, -1e8f});
  CHECK(evaluate<float>(make_cumsum(x, 0)) == std::vector<float>{1e8f, 1e8f, 1e8f, 0.f});
  // The first output is the element itself (numpy), not 0 + element: a leading -0.0 stays.
  const auto zeros = input<float>({3}, {-0.f, -0.f, 0.f});
  const auto result = evaluate<float>(make_cumsum(zeros, 0));
  CHECK(std::signbit(result[0]));
  CHECK(std::signbit(result[1]));
  CHECK(!std::signbit(result[2]));
  const auto nan = input<double>({3}, {1.0, kNaN64, 2.0});
  const auto with_nan = evaluate<double>(make_cumsum(nan, 0));
  CHECK(with_nan[0] == 1.0);
  CHECK(std::isnan(with_nan[1]));
  CHECK(std::isnan(with_nan[2]));
}

TEST_CASE("interpreter cumsum: a strided, transposed input and an empty axis") {
  auto buffer_values = std::vector<float>{1, 2, 3, 4, 5, 6};
  const auto base = input<float>({2, 3}, buffer_values);
  const auto transposed = make_permute(base, {1, 0});  // [[1, 4], [2, 5], [3, 6]]
  CHECK(evaluate<float>(make_cumsum(transposed, 0)) == std::vector<float>{1, 4, 3, 9, 6, 15});
  CHECK(evaluate<float>(make_cumsum(transposed, 1)) == std::vector<float>{1, 5, 2, 7, 3, 9});
  const auto empty = input<float>({2, 0}, {});
  CHECK(run({make_cumsum(empty, 1)}).at(0).layout.shape == Shape{2, 0});
}

TEST_CASE("interpreter sort and argsort: stable, NaN last ascending and first descending, -0.0 == 0.0") {
  const std::vector<float> values{3.f, kNaN, -0.f, 1.f, 0.f, -kInf, 1.f, kNaN, kInf};
  const auto x = input<float>(values);
  const auto n = static_cast<i64>(values.size());
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 0, false, n)) ==
        std::vector<i64>{5, 2, 4, 3, 6, 0, 8, 1, 7});
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 0, true, n)) ==
        std::vector<i64>{1, 7, 8, 0, 3, 6, 2, 4, 5});
  const auto sorted = evaluate<float>(make_sort(Op::sort, x, 0, false, n));
  CHECK(std::signbit(sorted[1]));    // -0.0 came first and keeps its bits
  CHECK(!std::signbit(sorted[2]));
  CHECK(std::isnan(sorted[7]));
  CHECK(std::isnan(sorted[8]));
  CHECK(sorted[0] == -kInf);
  CHECK(sorted[6] == kInf);
  // topk(3) is the first 3 of the descending order.
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 0, true, 3)) == std::vector<i64>{1, 7, 8});
}

TEST_CASE("interpreter sort: each axis, integers, bool, a transposed input, empty and size-1 axes") {
  const auto x = input<i32>({2, 3}, {5, -1, 5, 2, 7, -1});
  CHECK(evaluate<i32>(make_sort(Op::sort, x, 1, false, 3)) == std::vector<i32>{-1, 5, 5, -1, 2, 7});
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 1, false, 3)) == std::vector<i64>{1, 0, 2, 2, 0, 1});
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 0, true, 2)) == std::vector<i64>{0, 1, 0, 1, 0, 1});
  CHECK(evaluate<i64>(make_sort(Op::argsort, make_permute(x, {1, 0}), 0, false, 3)) ==
        std::vector<i64>{1, 2, 0, 0, 2, 1});
  const auto flags = input<bool>({5}, {true, false, true, false, false});
  CHECK(evaluate<i64>(make_sort(Op::argsort, flags, 0, false, 5)) == std::vector<i64>{1, 3, 4, 0, 2});
  CHECK(evaluate<i64>(make_sort(Op::argsort, flags, 0, true, 5)) == std::vector<i64>{0, 2, 1, 3, 4});
  const auto empty = input<float>({0, 3}, {});
  CHECK(run({make_sort(Op::sort, empty, 1, false, 3)}).at(0).layout.shape == Shape{0, 3});
  CHECK(evaluate<i64>(make_sort(Op::argsort, x, 1, false, 0)).empty());
  const auto single = input<double>({3, 1}, {2.0, kNaN64, -1.0});
  CHECK(evaluate<i64>(make_sort(Op::argsort, single, 1, false, 1)) == std::vector<i64>{0, 0, 0});
}

TEST_CASE("scan and order nodes: checked attributes, dtypes, shapes and the text IR") {
  const auto x = input<float>({2, 5}, std::vector<float>(10, 1.f));
  CHECK_THROWS_AS(make_cumsum(x, 2), tensorjit::Error);
  CHECK_THROWS_AS(make_sort(Op::sort, x, 1, false, 6), tensorjit::Error);
  CHECK_THROWS_AS(make_sort(Op::sort, x, -1, false, 2), tensorjit::Error);
  CHECK(make_sort(Op::argsort, x, 1, true, 2)->shape() == Shape{2, 2});
  CHECK(make_sort(Op::argsort, x, 1, true, 2)->dtype() == DType::i64);
  CHECK(make_sort(Op::sort, x, 1, true, 2)->dtype() == DType::f32);
  CHECK(make_cumsum(x, 1)->hash() != make_cumsum(x, 0)->hash());
  CHECK(make_sort(Op::sort, x, 1, true, 2)->hash() != make_sort(Op::sort, x, 1, false, 2)->hash());
}

TEST_CASE("scan and order nodes round-trip through the text IR") {
  const std::string text = R"(graph {
  %0 = input f32[2, 5] strides=[5, 1] offset=0
  %1 = cumsum f32[2, 5] %0 axis=1
  %2 = argsort i64[2, 3] %1 axis=1 descending=true count=3
  %3 = sort f32[1, 5] %0 axis=0 descending=false count=1
  outputs %2, %3
}
)";
  CHECK(print(parse(text)) == text);
}
