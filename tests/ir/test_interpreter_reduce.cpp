// The interpreter's reductions: every axis set of a small 3-D tensor with and without keepdims,
// the accumulation dtypes, the sequential row-major order, NaN and -0.0, empty reductions, argmax.
#include <string>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

// x[i][j][k] = 12 i + 4 j + k, of shape [2, 3, 4].
NodePtr cube_i32() {
  std::vector<i32> values(24);
  for (i32 i = 0; i < 24; ++i) values[i] = i;
  return input<i32>({2, 3, 4}, values);
}

struct AxisSetCase {
  std::vector<int> axes;
  Shape shape;           // without keepdims
  Shape kept_shape;      // with keepdims
  std::vector<i64> sum;  // by hand: e.g. over axis 0, (4j + k) + (12 + 4j + k)
  std::vector<i32> max;
  std::vector<i32> min;
};

const std::vector<AxisSetCase> kAxisSets{
    {{},
     {2, 3, 4},
     {2, 3, 4},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
    {{0},
     {3, 4},
     {1, 3, 4},
     {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34},
     {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
    {{1},
     {2, 4},
     {2, 1, 4},
     {12, 15, 18, 21, 48, 51, 54, 57},
     {8, 9, 10, 11, 20, 21, 22, 23},
     {0, 1, 2, 3, 12, 13, 14, 15}},
    {{2},
     {2, 3},
     {2, 3, 1},
     {6, 22, 38, 54, 70, 86},
     {3, 7, 11, 15, 19, 23},
     {0, 4, 8, 12, 16, 20}},
    {{0, 1}, {4}, {1, 1, 4}, {60, 66, 72, 78}, {20, 21, 22, 23}, {0, 1, 2, 3}},
    {{0, 2}, {3}, {1, 3, 1}, {60, 92, 124}, {15, 19, 23}, {0, 4, 8}},
    {{1, 2}, {2}, {2, 1, 1}, {66, 210}, {11, 23}, {0, 12}},
    {{0, 1, 2}, {}, {1, 1, 1}, {276}, {23}, {0}},
};

}  // namespace

TEST_CASE("interpreter: sum, max and min over every axis set of a 3-D tensor, with keepdims") {
  for (const AxisSetCase& axis_set : kAxisSets) {
    for (bool keepdims : {false, true}) {
      INFO("axes " << shape_str(Shape(axis_set.axes.begin(), axis_set.axes.end())) << " keepdims "
                   << keepdims);
      const Shape& shape = keepdims ? axis_set.kept_shape : axis_set.shape;
      auto values = run({make_reduce(Op::reduce_sum, cube_i32(), axis_set.axes, keepdims),
                         make_reduce(Op::reduce_max, cube_i32(), axis_set.axes, keepdims),
                         make_reduce(Op::reduce_min, cube_i32(), axis_set.axes, keepdims)});
      for (const Value& value : values) CHECK(value.layout == Layout::contiguous(shape));
      check_same(read<i64>(values[0]), axis_set.sum);
      check_same(read<i32>(values[1]), axis_set.max);
      check_same(read<i32>(values[2]), axis_set.min);
    }
  }
}

TEST_CASE("interpreter: reductions read strided inputs in the order of their logical indices") {
  // The cube permuted to [4, 3, 2] and summed over axis 0 is the sum over k, transposed.
  auto permuted = make_permute(cube_i32(), {2, 1, 0});
  check_same(evaluate<i64>(make_reduce(Op::reduce_sum, permuted, {0}, false)),
             {6, 54, 22, 70, 38, 86});
  // Product over axis 2 in f64: 0*1*2*3, 4*5*6*7, ...
  auto cube_f64 = make_cast(cube_i32(), DType::f64);
  check_same(evaluate<double>(make_reduce(Op::reduce_prod, cube_f64, {2}, false)),
             {0, 840, 7920, 32760, 93024, 212520});
}

TEST_CASE("interpreter: a float sum adds in the strict blocked order of reduction_order.hpp") {
  // In f32, 1e8 + 1 == 1e8. Four elements sit in lanes 0..3; the tree adds lane 0 to lane 2 and
  // lane 1 to lane 3, then the two: (1e8 + -1e8) + (1 + 1) == 2 (left to right would give 1).
  check_same(
      evaluate<float>(make_reduce(Op::reduce_sum, input<float>({1e8f, 1, -1e8f, 1}), {0}, false)),
      {2.0f});
  // Memory holds [[1e8, -1e8], [1, 1]]; the transposed view's row-major order is 1e8, 1, -1e8, 1.
  auto transposed = make_permute(input<float>({2, 2}, {1e8f, -1e8f, 1, 1}), {1, 0});
  check_same(evaluate<float>(make_reduce(Op::reduce_sum, transposed, {0, 1}, true)), {2.0f});
  // Elements 64 apart share a lane (f32 has 64 lanes): lane 0 adds 1e8, 1, -1e8 to 0, lane 1
  // holds 1, so the sum is 1 (left to right gives 0).
  std::vector<float> spread(3 * 64, 0.0f);
  spread[0] = 1e8f, spread[64] = 1, spread[128] = -1e8f, spread[1] = 1;
  check_same(evaluate<float>(make_reduce(Op::reduce_sum, input<float>(spread), {0}, false)), {1.0f});
  // Blocks of 4096 are added left to right after each block's tree: 1e8 in block 0, 1 in block 1,
  // -1e8 in block 2, 1 in block 3 give ((1e8 + 1) - 1e8) + 1 == 1.
  std::vector<float> blocks(4 * 4096, 0.0f);
  blocks[0] = 1e8f, blocks[4096] = 1, blocks[2 * 4096] = -1e8f, blocks[3 * 4096] = 1;
  check_same(evaluate<float>(make_reduce(Op::reduce_sum, input<float>(blocks), {0}, false)), {1.0f});
}

TEST_CASE("interpreter: sums start from -0.0, so a -0.0 survives; empty sums are 0") {
  check_same(evaluate<double>(make_reduce(Op::reduce_sum, input<double>({-0.0}), {0}, false)),
             {-0.0});
  check_same(evaluate<double>(make_reduce(Op::reduce_sum, input<double>({-0.0, -0.0}), {0}, false)),
             {-0.0});
  check_same(evaluate<double>(make_reduce(Op::reduce_sum, input<double>({-0.0, 0.0}), {0}, false)),
             {0.0});
  check_same(evaluate<float>(make_reduce(Op::reduce_sum, input<float>({kInf, -kInf}), {0}, false)),
             {kNaN});
  auto empty = input<float>(Shape{2, 0}, {});
  check_same(evaluate<float>(make_reduce(Op::reduce_sum, empty, {1}, false)), {0.0f, 0.0f});
  check_same(evaluate<float>(make_reduce(Op::reduce_prod, empty, {1}, true)), {1.0f, 1.0f});
  auto empty_bool = input<bool>(Shape{0}, {});
  check_same(evaluate<bool>(make_reduce(Op::reduce_any, empty_bool, {0}, false)), {false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_all, empty_bool, {0}, false)), {true});
  check_same(evaluate<i64>(make_reduce(Op::reduce_sum, input<i32>(Shape{0}, {}), {0}, false)), {0});
  // Nothing to reduce into: [0, 3] over axis 1 is an empty result.
  Value nothing =
      run({make_reduce(Op::reduce_max, input<float>(Shape{0, 3}, {}), {1}, false)}).at(0);
  CHECK(nothing.layout.shape == Shape{0});
}

TEST_CASE("interpreter: bool and integer sums and products accumulate in i64") {
  check_same(evaluate<i64>(make_reduce(Op::reduce_sum, input<i32>({kInt32Max, 1}), {0}, false)),
             {2147483648});
  check_same(evaluate<i64>(make_reduce(Op::reduce_prod, input<i32>({65536, 65536}), {0}, false)),
             {4294967296});
  check_same(evaluate<i64>(
                 make_reduce(Op::reduce_sum, input<bool>({true, false, true, true}), {0}, false)),
             {3});
  check_same(evaluate<i64>(make_reduce(Op::reduce_prod,
                                       input<bool>({2, 2}, {true, true, true, false}), {1}, false)),
             {1, 0});
  // i64 itself wraps.
  check_same(evaluate<i64>(make_reduce(Op::reduce_sum, input<i64>({kInt64Max, 1}), {0}, false)),
             {kInt64Min});
  check_same(evaluate<i64>(make_reduce(Op::reduce_prod, input<i64>({i64{1} << 32, i64{1} << 32}),
                                       {0}, false)),
             {0});
}

TEST_CASE("interpreter: max and min propagate the first NaN and keep the first of tied zeros") {
  auto rows =
      input<float>({4, 3}, {1, kNaN, 3, -0.0f, 0.0f, -1, 0.0f, -0.0f, 1, -kInf, -kInf, -kInf});
  check_same(evaluate<float>(make_reduce(Op::reduce_max, rows, {1}, false)),
             {kNaN, -0.0f, 1, -kInf});
  check_same(evaluate<float>(make_reduce(Op::reduce_min, rows, {1}, false)),
             {kNaN, -1, 0.0f, -kInf});
  auto zeros = input<double>({-0.0, 0.0});
  check_same(evaluate<double>(make_reduce(Op::reduce_max, zeros, {0}, false)), {-0.0});
  check_same(evaluate<double>(make_reduce(Op::reduce_min, zeros, {0}, false)), {-0.0});
  auto flipped = slice(zeros, 0, 1, -1, 2);  // [0.0, -0.0]
  check_same(evaluate<double>(make_reduce(Op::reduce_max, flipped, {0}, false)), {0.0});
  check_same(evaluate<double>(make_reduce(Op::reduce_min, flipped, {0}, false)), {0.0});
  check_same(evaluate<i64>(make_reduce(Op::reduce_min, input<i64>({3, kInt64Min, 5}), {0}, false)),
             {kInt64Min});
  // Bool: max is any, min is all.
  auto bools = input<bool>({2, 2}, {false, true, false, false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_max, bools, {1}, false)), {true, false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_min, bools, {0}, false)), {false, false});
}

TEST_CASE("interpreter: any and all") {
  auto bools = input<bool>({2, 3}, {true, false, true, false, false, false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_any, bools, {1}, false)), {true, false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_all, bools, {0}, true)), {false, false, false});
  check_same(evaluate<bool>(make_reduce(Op::reduce_all, input<bool>({true, true}), {0}, false)),
             {true});
  check_same(evaluate<bool>(make_reduce(Op::reduce_any, bools, {0, 1}, false)), {true});
}

TEST_CASE("interpreter: argmax and argmin give the first extreme; NaN counts as the extreme") {
  auto rows = input<float>({3, 4}, {1, 3, 3, 2, kNaN, 5, kNaN, 0, 5, -0.0f, 0.0f, kNaN});
  check_same(evaluate<i64>(make_reduce(Op::argmax, rows, {1}, false)), {1, 0, 3});
  check_same(evaluate<i64>(make_reduce(Op::argmin, rows, {1}, false)), {0, 0, 3});
  Value kept = run({make_reduce(Op::argmax, rows, {1}, true)}).at(0);
  CHECK(kept.layout.shape == Shape{3, 1});
  check_same(evaluate<i64>(make_reduce(Op::argmin, rows, {0}, false)), {1, 2, 1, 2});
  // Along axis 0 of the cube every maximum is in the second block, every minimum in the first.
  auto along_first = run({make_reduce(Op::argmax, cube_i32(), {0}, true),
                          make_reduce(Op::argmin, cube_i32(), {0}, false)});
  CHECK(along_first[0].layout.shape == Shape{1, 3, 4});
  check_same(read<i64>(along_first[0]), std::vector<i64>(12, 1));
  check_same(read<i64>(along_first[1]), std::vector<i64>(12, 0));
  check_same(evaluate<i64>(make_reduce(Op::argmax, cube_i32(), {2}, false)), {3, 3, 3, 3, 3, 3});
  check_same(evaluate<i64>(make_reduce(Op::argmax, input<bool>({false, true, true}), {0}, false)),
             {1});
  check_same(evaluate<i64>(make_reduce(Op::argmin, input<i32>({3, 1, 1}), {0}, false)), {1});
  check_same(evaluate<i64>(make_reduce(Op::argmax, input<i64>({7, 7}), {0}, false)), {0});
}

TEST_CASE("interpreter: max, min, argmax and argmin of no elements are errors naming the op") {
  auto empty_axis = input<float>(Shape{3, 0}, {});
  for (Op op : {Op::reduce_max, Op::reduce_min, Op::argmax, Op::argmin}) {
    try {
      make_reduce(op, empty_axis, {1}, false);
      FAIL("no error for " << op_name(op));
    } catch (const Error& error) {
      const std::string message = error.what();
      CHECK(message.find(std::string(op_name(op))) != std::string::npos);
      CHECK(message.find("[3, 0]") != std::string::npos);
    }
  }
}
