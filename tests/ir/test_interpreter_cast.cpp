// The interpreter's casts between every pair of dtypes: saturating float -> int with NaN -> 0,
// x != 0 to bool, 0/1 from bool, wrapping int -> int, round to nearest even into floats.
#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

TEST_CASE("interpreter: float -> int truncates toward zero and saturates, NaN -> 0") {
  // 2147483520 is the largest float below 2^31; 2^31 itself is out of range.
  check_same(
      cast<i32, float>({2.9f, -2.9f, -0.0f, kNaN, kInf, -kInf, 3e9f, -3e9f, 2147483520.0f,
                        2147483648.0f, -2147483648.0f}),
      {2, -2, 0, 0, kInt32Max, kInt32Min, kInt32Max, kInt32Min, 2147483520, kInt32Max, kInt32Min});
  check_same(cast<i32, double>({2147483647.9, -2147483648.9, 1e300, -kNaN64, -2147483647.5}),
             {kInt32Max, kInt32Min, kInt32Max, 0, -2147483647});
  // 9223372036854774784 is the largest double below 2^63.
  check_same(cast<i64, double>({9.3e18, 9223372036854774784.0, -9223372036854775808.0, -1e19,
                                kNaN64, -kInf64, 0.5}),
             {kInt64Max, i64{9223372036854774784}, kInt64Min, kInt64Min, 0, kInt64Min, 0});
  check_same(cast<i64, float>({1e19f, -1e19f, 16777216.0f}), {kInt64Max, kInt64Min, 16777216});
}

TEST_CASE("interpreter: anything -> bool is x != 0, so NaN -> true and -0.0 -> false") {
  check_same(cast<bool, float>({kNaN, -0.0f, 0.0f, kDenormMin, -kInf}),
             {true, false, false, true, true});
  check_same(cast<bool, double>({0.0, 0.5}), {false, true});
  check_same(cast<bool, i32>({0, -1, kInt32Min}), {false, true, true});
  check_same(cast<bool, i64>({0, i64{1} << 40}), {false, true});
}

TEST_CASE("interpreter: bool -> number is 0 or 1") {
  check_same(cast<float, bool>({false, true}), {0.0f, 1.0f});
  check_same(cast<double, bool>({true, false}), {1.0, 0.0});
  check_same(cast<i32, bool>({false, true}), {0, 1});
  check_same(cast<i64, bool>({true}), {1});
}

TEST_CASE("interpreter: int -> int wraps to the low bits, widening sign-extends") {
  check_same(cast<i32, i64>({4294967297, 2147483648, -1, kInt64Min, -2147483649}),
             {1, kInt32Min, -1, 0, kInt32Max});
  check_same(cast<i64, i32>({kInt32Min, -5, kInt32Max}), {i64{kInt32Min}, -5, i64{kInt32Max}});
}

TEST_CASE("interpreter: conversions into floats round to nearest even") {
  check_same(cast<float, i32>({16777217, 16777219, kInt32Min, kInt32Max}),
             {16777216.0f, 16777220.0f, -2147483648.0f, 2147483648.0f});
  check_same(cast<double, i64>({9007199254740993, kInt64Max}),
             {9007199254740992.0, 9223372036854775808.0});
  check_same(cast<float, i64>({kInt64Min}), {-9223372036854775808.0f});
  // f64 -> f32: overflows to +-inf, underflows to 0 or a subnormal. 3.40282356e38 is above FLT_MAX
  // but rounds down to it; FLT_MAX + ulp/2 = 3.4028235677973366e38 is a tie that rounds to even,
  // which is 2^128: inf.
  const float float_max = std::numeric_limits<float>::max();
  check_same(cast<float, double>({1e300, -1e300, 1e-50, -1e-50, 0.1, kNaN64, 3.40282356e38,
                                  3.4028235677973366e38, 1.5e-45, -0.0}),
             {kInf, -kInf, 0.0f, -0.0f, 0.1f, kNaN, float_max, kInf, kDenormMin, -0.0f});
  check_same(cast<double, float>({0.1f, kDenormMin, -kInf}),
             {static_cast<double>(0.1f), 1.401298464324817e-45, -kInf64});
}

TEST_CASE("interpreter: a cast to the same dtype keeps every bit") {
  check_same(cast<float, float>({kNaN, -0.0f}), {kNaN, -0.0f});
  check_same(cast<i64, i64>({kInt64Min}), {kInt64Min});
  check_same(cast<bool, bool>({true, false}), {true, false});
}
