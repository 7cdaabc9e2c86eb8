// The interpreter on every binary op and on where, with values worked out by hand: IEEE special
// values, wrap-around, floor division and Python's modulo, division by zero, shifts out of range.
#include <cmath>
#include <numbers>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

TEST_CASE("interpreter: add, sub and mul: IEEE floats, no flush to zero, wrapping integers") {
  check_same(binary<float>(Op::add, {kInf, -0.0f, -0.0f, 0.1f, kDenormMin, kNaN, 3e38f},
                           {-kInf, -0.0f, 0.0f, 0.2f, kDenormMin, 1.0f, 3e38f}),
             {kNaN, -0.0f, 0.0f, 0.3f, 2 * kDenormMin, kNaN, kInf});
  check_same(binary<i32>(Op::add, {kInt32Max, kInt32Min, -5}, {1, -1, 3}),
             {kInt32Min, kInt32Max, -2});
  check_same(binary<i64>(Op::add, {kInt64Max}, {1}), {kInt64Min});

  check_same(binary<double>(Op::sub, {0.0, -0.0, kInf64, 1.0}, {0.0, 0.0, kInf64, 0.25}),
             {0.0, -0.0, kNaN64, 0.75});
  check_same(binary<i32>(Op::sub, {kInt32Min, 0, 3}, {1, kInt32Min, 5}),
             {kInt32Max, kInt32Min, -2});

  // FLT_MIN * 0.5 is a subnormal (no flush to zero); denorm_min * 0.5 is a tie that rounds to 0.
  const float float_min = std::numeric_limits<float>::min();
  check_same(binary<float>(Op::mul, {-0.0f, kInf, float_min, kDenormMin, -2.0f},
                           {5.0f, 0.0f, 0.5f, 0.5f, 1.5f}),
             {-0.0f, kNaN, float_min / 2, 0.0f, -3.0f});
  check_same(binary<i32>(Op::mul, {65536, kInt32Min, -3, kInt32Max}, {65536, -1, 4, 2}),
             {0, kInt32Min, -12, -2});
  check_same(binary<i64>(Op::mul, {kInt64Min, i64{1} << 32}, {-1, i64{1} << 32}), {kInt64Min, 0});
}

TEST_CASE("interpreter: div is IEEE for floats, floor division for integers with x/0 == 0") {
  check_same(binary<float>(Op::div, {1.0f, -1.0f, 1.0f, 0.0f, 7.0f, kInf, kNaN},
                           {0.0f, 0.0f, -0.0f, 0.0f, 2.0f, kInf, 1.0f}),
             {kInf, -kInf, -kInf, kNaN, 3.5f, kNaN, kNaN});
  check_same(binary<i32>(Op::div, {7, -7, 7, -7, 6, -6, 5, kInt32Min, 0, kInt32Min, -1, kInt32Min},
                         {2, 2, -2, -2, 3, 3, 0, -1, -5, 2, 2, 1}),
             {3, -4, -4, 3, 2, -2, 0, kInt32Min, 0, -1073741824, -1, kInt32Min});
  check_same(binary<i64>(Op::div, {kInt64Min, 9, -1}, {-1, 0, kInt64Max}), {kInt64Min, 0, -1});
}

TEST_CASE("interpreter: mod has the divisor's sign (Python's %)") {
  check_same(binary<i32>(Op::mod, {7, -7, 7, -7, 5, kInt32Min, 6, -6, kInt32Min, kInt32Max, 0},
                         {3, 3, -3, -3, 0, -1, 3, 3, kInt32Max, kInt32Min, -4}),
             {1, 2, -2, -1, 0, 0, 0, 0, 2147483646, -1, 0});
  check_same(binary<i64>(Op::mod, {kInt64Min, -1}, {-1, 0}), {0, 0});
  // Floats: a zero remainder takes the divisor's sign; x % 0 and inf % y are NaN;
  // -5 % inf == inf as in Python.
  check_same(binary<double>(Op::mod,
                            {5.5, -5.5, 5.5, -0.0, 3.0, 6.0, -6.0, 5.0, kInf64, 5.0, -5.0, kNaN64},
                            {2.0, 2.0, -2.0, 3.0, -3.0, 3.0, 3.0, 0.0, 3.0, kInf64, kInf64, 3.0}),
             {1.5, 0.5, -0.5, 0.0, -0.0, 0.0, 0.0, kNaN64, kNaN64, 5.0, kInf64, kNaN64});
}

TEST_CASE("interpreter: pow: libm for floats, wrapping repeated squaring for integers") {
  check_same(binary<float>(Op::pow, {2.0f, 2.0f, kNaN, 1.0f, -8.0f, 0.0f, -0.0f, -2.0f},
                           {10.0f, -1.0f, 0.0f, kNaN, 1.0f / 3.0f, -1.0f, -1.0f, 3.0f}),
             {1024.0f, 0.5f, 1.0f, 1.0f, kNaN, kInf, -kInf, -8.0f});
  // 3^40 mod 2^32 = 689956897; 2^31 wraps to INT_MIN.
  check_same(binary<i32>(Op::pow, {2, 3, 0, 2, 2, -2, 2, 1, -1, -1, 0, 3, 5},
                         {10, 0, 0, 31, 32, 3, -1, -5, -3, -4, -1, 40, 1}),
             {1024, 1, 1, kInt32Min, 0, -8, 0, 1, -1, 1, 0, 689956897, 5});
  check_same(binary<i64>(Op::pow, {3, 2, -1}, {40, 63, kInt64Min}),
             {-6289078614652622815, kInt64Min, 1});
}

TEST_CASE("interpreter: maximum and minimum propagate NaN, and give the first operand on ties") {
  check_same(binary<float>(Op::maximum, {1.0f, kNaN, 1.0f, -0.0f, 0.0f, -kInf, kNaN},
                           {2.0f, 1.0f, kNaN, 0.0f, -0.0f, kInf, kNaN}),
             {2.0f, kNaN, kNaN, -0.0f, 0.0f, kInf, kNaN});
  check_same(binary<double>(Op::minimum, {1.0, kNaN64, 1.0, -0.0, 0.0, -kInf64},
                            {2.0, 1.0, kNaN64, 0.0, -0.0, kInf64}),
             {1.0, kNaN64, kNaN64, -0.0, 0.0, -kInf64});
  check_same(binary<i32>(Op::maximum, {kInt32Min, 3}, {0, -3}), {0, 3});
  check_same(binary<i64>(Op::minimum, {kInt64Min, 3}, {0, -3}), {kInt64Min, -3});
}

TEST_CASE("interpreter: comparisons are IEEE: NaN is unordered, -0.0 == 0.0") {
  const std::vector<float> a{1.0f, kNaN, -0.0f, -kInf, 2.0f};
  const std::vector<float> b{2.0f, kNaN, 0.0f, -kInf, 1.0f};
  check_same(binary<float, bool>(Op::eq, a, b), {false, false, true, true, false});
  check_same(binary<float, bool>(Op::ne, a, b), {true, true, false, false, true});
  check_same(binary<float, bool>(Op::lt, a, b), {true, false, false, false, false});
  check_same(binary<float, bool>(Op::le, a, b), {true, false, true, true, false});
  check_same(binary<float, bool>(Op::gt, a, b), {false, false, false, false, true});
  check_same(binary<float, bool>(Op::ge, a, b), {false, false, true, true, true});
  check_same(binary<i64, bool>(Op::lt, {kInt64Min, 5, 5}, {kInt64Max, 5, 4}), {true, false, false});
  check_same(binary<i32, bool>(Op::ge, {kInt32Min, 5}, {kInt32Max, 5}), {false, true});
  // false < true.
  check_same(binary<bool, bool>(Op::lt, {false, true, false, true}, {true, false, false, true}),
             {true, false, false, false});
  check_same(binary<bool, bool>(Op::eq, {false, true}, {false, false}), {true, false});
}

TEST_CASE("interpreter: logical and bitwise ops") {
  const std::vector<bool> a{false, false, true, true};
  const std::vector<bool> b{false, true, false, true};
  check_same(binary<bool>(Op::logical_and, a, b), {false, false, false, true});
  check_same(binary<bool>(Op::logical_or, a, b), {false, true, true, true});
  // 5 | -8: 0b0101 | ...11000 = ...11101 = -3.
  check_same(binary<i32>(Op::bitwise_and, {-1, 12, kInt32Min}, {15, 10, -1}), {15, 8, kInt32Min});
  check_same(binary<i32>(Op::bitwise_or, {5, 12}, {-8, 10}), {-3, 14});
  check_same(binary<i64>(Op::bitwise_xor, {5, 12, kInt64Min}, {-1, 10, -1}), {-6, 6, kInt64Max});
}

TEST_CASE("interpreter: shifts outside [0, bits) give 0, or -1 for a negative right shift") {
  check_same(binary<i32>(Op::left_shift, {1, 1, 1, 1, 3, -1, 5, 7},
                         {0, 31, 32, -1, 30, 1, 100, kInt32Min}),
             {1, kInt32Min, 0, 0, -1073741824, -2, 0, 0});
  check_same(binary<i64>(Op::left_shift, {1, 1, 3}, {63, 64, 62}),
             {kInt64Min, 0, i64{-4611686018427387904}});
  check_same(binary<i32>(Op::right_shift, {-8, -1, -8, 8, 8, -8, kInt32Min, 16, kInt32Max},
                         {1, 31, 32, 32, -1, -1, 31, 4, 30}),
             {-4, -1, -1, 0, 0, -1, -1, 1, 1});
  check_same(binary<i64>(Op::right_shift, {kInt64Min, kInt64Max, -5}, {63, 64, 64}), {-1, 0, -1});
}

TEST_CASE("interpreter: where selects without touching the bits") {
  auto condition = input<bool>({true, false, true, false});
  auto a = input<float>({-0.0f, 1.0f, kNaN, 2.0f});
  auto b = input<float>({5.0f, -0.0f, 3.0f, kNaN});
  check_same(evaluate<float>(where(condition, a, b)), {-0.0f, -0.0f, kNaN, kNaN});
  auto ints = where(input<bool>({false, true}), input<i64>({kInt64Min, 1}), input<i64>({7, 8}));
  check_same(evaluate<i64>(ints), {7, 1});
  auto bools =
      where(input<bool>({false, true}), input<bool>({true, true}), input<bool>({false, false}));
  check_same(evaluate<bool>(bools), {false, true});
}

TEST_CASE("interpreter: binary ops read broadcast operands through zero strides") {
  // [2, 1] + [3] broadcast to [2, 3] with expand.
  auto column = make_expand(input<i32>({2, 1}, {10, 20}), {2, 3});
  auto row = make_expand(input<i32>({1, 2, 3}), {2, 3});
  check_same(evaluate<i32>(make_binary(Op::add, column, row)), {11, 12, 13, 21, 22, 23});
}

TEST_CASE("interpreter: atan2 is libm's, with C99's signed zeros and infinities") {
  const double pi = std::numbers::pi;
  check_same(binary<double>(Op::atan2, {0.0, -0.0, 0.0, -0.0, 1.0, kInf64, kInf64, -kInf64, kNaN64, 1.0},
                            {0.0, 0.0, -0.0, -0.0, 0.0, kInf64, -kInf64, 1.0, 1.0, -kInf64}),
             {0.0, -0.0, pi, -pi, pi / 2, pi / 4, 3 * pi / 4, -pi / 2, kNaN64, pi});
  check_same(binary<float>(Op::atan2, {1.0f, -2.0f}, {1.0f, -3.0f}),
             {std::atan2(1.0f, 1.0f), std::atan2(-2.0f, -3.0f)});
}
