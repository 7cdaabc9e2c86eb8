// The interpreter on views: they share their input's buffer (no copy) and read through strides,
// including negative steps, broadcasts, and strided external memory wrapped with Buffer::wrap.
#include <array>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;

namespace {

// Twelve floats 0, 1, ..., 11 in caller-owned memory, viewed through `layout` without a copy.
struct ExternalMemory {
  std::array<float, 12> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  int releases = 0;
  NodePtr view(Layout layout) {
    auto buffer = Buffer::wrap(values.data(), sizeof(values), [this] { ++releases; });
    return make_input(std::move(buffer), DType::f32, std::move(layout));
  }
};

}  // namespace

TEST_CASE("interpreter: reshape, permute and expand of an input share its buffer") {
  auto x = input<i32>({2, 3}, {0, 1, 2, 3, 4, 5});
  const auto& buffer = x->attr<InputAttr>().buffer;
  auto values = run({make_reshape(x, {3, 2}), make_permute(x, {1, 0}),
                     make_expand(make_reshape(x, {1, 2, 3}), {2, 2, 3})});
  for (const Value& value : values) CHECK(value.buffer == buffer);
  check_same(read<i32>(values[0]), {0, 1, 2, 3, 4, 5});
  check_same(read<i32>(values[1]), {0, 3, 1, 4, 2, 5});
  CHECK(values[1].layout.strides == Strides{1, 3});
  check_same(read<i32>(values[2]), {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  CHECK(values[2].layout.strides == Strides{0, 3, 1});
}

TEST_CASE("interpreter: slices with positive and negative steps, and flip") {
  auto x = input<i32>({0, 1, 2, 3, 4, 5});
  check_same(evaluate<i32>(slice(x, 0, 1, 2, 3)), {1, 3, 5});
  check_same(evaluate<i32>(slice(x, 0, 4, -2, 3)), {4, 2, 0});
  check_same(evaluate<i32>(slice(x, 0, 5, -1, 6)), {5, 4, 3, 2, 1, 0});  // flip
  check_same(evaluate<i32>(slice(x, 0, 2, 1, 0)), {});
  auto grid = input<i32>({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // Rows 2, 0 (step -2) and columns 3, 1 (step -2).
  auto corners = slice(slice(grid, 0, 2, -2, 2), 1, 3, -2, 2);
  Value value = run({corners}).at(0);
  CHECK(value.buffer == grid->attr<InputAttr>().buffer);
  CHECK(value.layout == Layout{{2, 2}, {-8, -2}, 11});
  check_same(read<i32>(value), {11, 9, 3, 1});
  // An elementwise op over the flipped view reads it in the view's order.
  check_same(evaluate<i32>(make_unary(Op::neg, corners)), {-11, -9, -3, -1});
}

TEST_CASE("interpreter: a one-element slice ignores its step, however large") {
  // The step of a one-element slice is never taken; multiplying it into the stride overflowed.
  auto grid = input<i32>({2, 3}, {0, 1, 2, 3, 4, 5});
  for (std::int64_t step : {kInt64Max, kInt64Min, -kInt64Max}) {
    CAPTURE(step);
    Value value = run({slice(grid, 1, 2, step, 1)}).at(0);
    CHECK(value.layout == Layout{{2, 1}, {3, 1}, 2});
    check_same(read<i32>(value), {2, 5});
  }
}

TEST_CASE("interpreter: a reshape that strides cannot express copies first") {
  auto x = input<i32>({2, 3}, {0, 1, 2, 3, 4, 5});
  auto flat = make_reshape(make_permute(x, {1, 0}), {6});
  Value value = run({flat}).at(0);
  CHECK(value.buffer != x->attr<InputAttr>().buffer);
  check_same(read<i32>(value), {0, 3, 1, 4, 2, 5});
  // A reshape of a sliced (but row-contiguous) view needs no copy.
  auto rows = make_reshape(slice(input<i32>({3, 2}, {0, 1, 2, 3, 4, 5}), 0, 2, -1, 2), {2, 1, 2});
  check_same(evaluate<i32>(rows), {4, 5, 2, 3});
}

TEST_CASE("interpreter: strided external memory is read in place and released once") {
  ExternalMemory memory;
  {
    // (i, j) at 1 + 4 i + 2 j: the odd values.
    auto odd = memory.view(Layout{{3, 2}, {4, 2}, 1});
    // Negative strides from the end: (i, j) at 11 - 4 i - 2 j.
    auto reversed = memory.view(Layout{{3, 2}, {-4, -2}, 11});
    // A zero stride repeats row 0 of columns 5, 6, 7.
    auto repeated = memory.view(Layout{{2, 3}, {0, 1}, 5});
    auto values = run({make_unary(Op::neg, odd), reversed, make_unary(Op::copy, repeated)});
    check_same(read<float>(values[0]), {-1, -3, -5, -7, -9, -11});
    check_same(read<float>(values[1]), {11, 9, 7, 5, 3, 1});
    CHECK(values[1].buffer->data() == memory.values.data());
    check_same(read<float>(values[2]), {5, 6, 7, 5, 6, 7});
    CHECK(memory.releases == 0);
  }
  CHECK(memory.releases == 3);
}

TEST_CASE("interpreter: an input that reaches outside its buffer is rejected") {
  ExternalMemory memory;
  CHECK_THROWS_AS(memory.view(Layout{{3, 2}, {4, 2}, 2}), Error);
  CHECK_THROWS_AS(memory.view(Layout{{2}, {-1}, 0}), Error);
}

TEST_CASE("interpreter: views of empty and rank-0 values") {
  auto empty = input<float>(Shape{0, 4}, {});
  Value reshaped = run({make_reshape(empty, {4, 0, 2})}).at(0);
  CHECK(reshaped.layout.shape == Shape{4, 0, 2});
  CHECK(read<float>(reshaped).empty());
  auto scalar = input<float>(Shape{}, {3.5f});
  check_same(evaluate<float>(make_expand(scalar, {2, 2})), {3.5f, 3.5f, 3.5f, 3.5f});
  check_same(evaluate<float>(make_reshape(scalar, {1, 1})), {3.5f});
}
