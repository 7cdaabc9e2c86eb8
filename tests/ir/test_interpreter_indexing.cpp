// The interpreter's gather and scatter_add (the oracle of the kernels): values worked out by hand on
// every axis, negative indices, i32 and i64 indices, strided operands, repeated destinations added
// in increasing position (f32 sums whose value depends on that order), the error for an index out
// of range (the first in row-major order, its position in the user's indices), Node::make's checks,
// and the text IR of both ops.
#include <tensorjit/ir/indexing.hpp>
#include <tensorjit/ir/text.hpp>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

IndexAttr along(int axis, IndexOrigin origin = IndexOrigin::take_along_axis) { return IndexAttr{axis, 0, origin}; }

}  // namespace

TEST_CASE("interpreter gather: each axis of a 2 x 3 tensor, negative indices, i32 and i64") {
  const auto x = input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // Along axis 0: result[i, j] = x[indices[i, j], j].
  const auto rows = input<i64>({3, 3}, {1, 0, -1, 0, 0, 0, -2, 1, 1});
  CHECK(evaluate<float>(make_gather(x, rows, along(0))) == std::vector<float>{4, 2, 6, 1, 2, 3, 1, 5, 6});
  // Along axis 1: result[i, j] = x[i, indices[i, j]].
  const auto columns = input<i32>({2, 2}, {2, -3, -1, 1});
  CHECK(evaluate<float>(make_gather(x, columns, along(1))) == std::vector<float>{3, 1, 6, 5});
  // An empty axis of indices gives an empty result.
  CHECK(evaluate<float>(make_gather(x, input<i64>({2, 0}, {}), along(1))).empty());
  // A strided (transposed) operand.
  const auto xt = make_permute(x, {1, 0});
  CHECK(evaluate<float>(make_gather(xt, input<i64>({1, 2}, {1, 0}), along(0))) == std::vector<float>{2, 4});
}

TEST_CASE("interpreter scatter_add: repeated destinations add in increasing position") {
  const auto base = input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto values = input<float>({2, 3}, {10, 20, 30, 40, 50, 60});
  CHECK(evaluate<float>(make_scatter_add(base, input<i64>({2, 3}, {1, 1, 0, 1, -2, 1}), values, along(0, IndexOrigin::scatter_add))) ==
        std::vector<float>{1, 52, 33, 54, 25, 66});
  CHECK(evaluate<float>(make_scatter_add(base, input<i32>({2, 3}, {0, 0, 0, 2, -1, 1}), values, along(1, IndexOrigin::scatter_add))) ==
        std::vector<float>{61, 2, 3, 4, 65, 96});
  // 1e8 + 1 + 1 - 1e8 added to 0 at one destination, in position order: each 1 is lost, then 0;
  // any other order (-1e8 first) would keep them.
  const auto zero = input<float>({1}, {0});
  const auto four = input<float>({4}, {1e8f, 1, 1, -1e8f});
  CHECK(evaluate<float>(make_scatter_add(zero, input<i64>({4}, {0, 0, 0, 0}), four, along(0, IndexOrigin::scatter_add))) ==
        std::vector<float>{0});
  // Integers wrap, as add does.
  const auto big = input<i32>({1}, {kInt32Max});
  CHECK(evaluate<i32>(make_scatter_add(big, input<i64>({1}, {0}), input<i32>({1}, {1}), along(0, IndexOrigin::scatter_add))) ==
        std::vector<i32>{kInt32Min});
}

TEST_CASE("interpreter gather and scatter_add: the first index out of range is an error naming it") {
  const auto x = input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto bad = input<i64>({2, 3}, {0, 1, 0, 2, 1, -3});
  CHECK_THROWS_WITH_AS(evaluate<float>(make_gather(x, bad, along(0))),
                       "take_along_axis: index 2 at position [1, 0] of the indices is outside [-2, 2), the 2 elements "
                       "of the axis it indexes (axis 0); pass indices in that range (negative ones count from the end)",
                       tensorjit::Error);
  CHECK_THROWS_WITH_AS(evaluate<float>(make_scatter_add(x, bad, x, along(0, IndexOrigin::scatter_add))),
                       doctest::Contains("scatter_add: index 2 at position [1, 0]"), tensorjit::Error);
  // take spreads a [2]-index over axis 1 of a [3, 2, 2] gather: the position is the index's own.
  const auto spread = make_expand(make_reshape(input<i64>({2}, {0, 5}), {1, 2}), {3, 2});
  CHECK_THROWS_WITH_AS(evaluate<float>(make_gather(make_permute(x, {1, 0}), spread, IndexAttr{1, 1, IndexOrigin::take})),
                       doctest::Contains("take: index 5 at position [1] of the indices is outside [-2, 2)"), tensorjit::Error);
  CHECK(resolve_index(-2, 2) == 0);
  CHECK(resolve_index(-3, 2) == -1);
  CHECK(resolve_index(2, 2) == -1);
  CHECK(resolve_index(0, 0) == -1);
}

TEST_CASE("Node::make: gather and scatter_add check axis, dtypes and shapes") {
  const auto x = input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH_AS(make_gather(x, input<float>({2, 3}, {0, 0, 0, 0, 0, 0}), along(0)),
                       doctest::Contains("gather: indices must be i32 or i64"), tensorjit::Error);
  CHECK_THROWS_WITH_AS(make_gather(x, input<i64>({2, 2}, {0, 0, 0, 0}), along(0)),
                       doctest::Contains("must have the shape of f32[2, 3] but along axis 0"), tensorjit::Error);
  CHECK_THROWS_WITH_AS(make_gather(x, input<i64>({2, 3}, {0, 0, 0, 0, 0, 0}), along(2)), doctest::Contains("axis 2"),
                       tensorjit::Error);
  CHECK_THROWS_WITH_AS(make_scatter_add(x, input<i64>({1, 3}, {0, 0, 0}), input<float>({2, 3}, {0, 0, 0, 0, 0, 0}),
                                        along(0, IndexOrigin::scatter_add)),
                       doctest::Contains("scatter_add: values f32[2, 3] must have"), tensorjit::Error);
  const auto flags = input<bool>({2}, {true, false});
  CHECK_THROWS_WITH_AS(make_scatter_add(flags, input<i64>({2}, {0, 1}), flags, along(0, IndexOrigin::scatter_add)),
                       doctest::Contains("scatter_add: needs a numeric dtype"), tensorjit::Error);
  CHECK(make_gather(flags, input<i64>({1}, {1}), along(0))->dtype() == DType::boolean);
}

TEST_CASE("text IR: gather and scatter_add print and parse back") {
  const std::string text =
      "graph {\n"
      "  %0 = input f32[4, 3] strides=[3, 1] offset=0\n"
      "  %1 = input i64[2, 3] strides=[3, 1] offset=0\n"
      "  %2 = gather f32[2, 3] %0, %1 axis=0 index_axes=1 origin=take\n"
      "  %3 = scatter_add f32[4, 3] %0, %1, %2 axis=0 index_axes=0 origin=scatter_add\n"
      "  outputs %2, %3\n"
      "}\n";
  CHECK(print(parse(text)) == text);
  CHECK_THROWS_WITH_AS(parse("graph {\n  %0 = input f32[4] strides=[1] offset=0\n  %1 = input i64[4] strides=[1] offset=0\n"
                             "  %2 = gather f32[4] %0, %1 axis=0 index_axes=0 origin=nowhere\n  outputs %2\n}\n"),
                       doctest::Contains("expected origin=take"), tensorjit::Error);
}
