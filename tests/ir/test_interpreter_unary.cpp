// The interpreter on every unary op of ops.def, with values worked out by hand: NaN, +-inf, -0.0,
// subnormals, INT_MIN. Transcendental values that are not exact by definition are compared with
// the libm call the contract names, in the same precision.
#include <cmath>
#include <numbers>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

TEST_CASE("interpreter: copy keeps every bit and makes the result contiguous") {
  check_same(unary<float>(Op::copy, {-0.0f, kNaN, kDenormMin, -kInf}),
             {-0.0f, kNaN, kDenormMin, -kInf});
  check_same(unary<std::int32_t>(Op::copy, {kInt32Min, 7}), {kInt32Min, 7});
  check_same(unary<bool>(Op::copy, {true, false}), {true, false});
  auto transposed = make_permute(input<std::int64_t>({2, 2}, {1, 2, 3, 4}), {1, 0});
  Value value = run({make_unary(Op::copy, transposed)}).at(0);
  CHECK(value.layout == Layout::contiguous({2, 2}));
  check_same(read<std::int64_t>(value), {1, 3, 2, 4});
}

TEST_CASE("interpreter: neg flips the sign bit of floats and wraps integers") {
  auto got = unary<float>(Op::neg, {0.0f, -0.0f, 2.5f, -kInf, kDenormMin, kNaN});
  check_same(got, {-0.0f, 0.0f, -2.5f, kInf, -kDenormMin, kNaN});
  CHECK(std::signbit(got[5]));  // the NaN's sign bit flipped too
  check_same(unary<std::int32_t>(Op::neg, {5, -5, 0, kInt32Min, kInt32Max}),
             {-5, 5, 0, kInt32Min, -kInt32Max});
  check_same(unary<std::int64_t>(Op::neg, {kInt64Min, 1}), {kInt64Min, -1});
}

TEST_CASE("interpreter: abs clears the sign bit of floats, abs(INT_MIN) == INT_MIN") {
  auto got = unary<double>(Op::abs, {-0.0, -3.5, -kInf64, -kNaN64, 2.0});
  check_same(got, {0.0, 3.5, kInf64, kNaN64, 2.0});
  CHECK(!std::signbit(got[3]));
  check_same(unary<std::int32_t>(Op::abs, {-7, 7, 0, kInt32Min}), {7, 7, 0, kInt32Min});
  check_same(unary<std::int64_t>(Op::abs, {kInt64Min, -1}), {kInt64Min, 1});
}

TEST_CASE("interpreter: sign keeps zeros and NaN") {
  auto got = unary<float>(Op::sign, {-2.5f, 3.0f, 0.0f, -0.0f, kNaN, -kInf, kDenormMin});
  check_same(got, {-1.0f, 1.0f, 0.0f, -0.0f, kNaN, -1.0f, 1.0f});
  check_same(unary<std::int32_t>(Op::sign, {-9, 0, 4, kInt32Min}), {-1, 0, 1, -1});
}

TEST_CASE("interpreter: square overflows to inf for floats and wraps for integers") {
  check_same(unary<float>(Op::square, {-3.0f, -0.0f, 1e20f, kNaN, kDenormMin}),
             {9.0f, 0.0f, kInf, kNaN, 0.0f});
  // 46341^2 = 2147488281 = 2^32 - 2147479015; 65536^2 = 2^32.
  check_same(unary<std::int32_t>(Op::square, {-4, 46341, 65536}), {16, -2147479015, 0});
}

TEST_CASE("interpreter: sqrt, rsqrt and reciprocal") {
  check_same(unary<float>(Op::sqrt, {4.0f, -0.0f, -1.0f, kInf, 2.0f}),
             {2.0f, -0.0f, kNaN, kInf, 1.41421356f});
  // rsqrt is 1 / sqrt(x) with two roundings: rsqrt(2.0) is 0.7071067811865475, one ulp below the
  // correctly rounded 1/sqrt(2) = 0.7071067811865476.
  auto rsqrt = unary<double>(Op::rsqrt, {4.0, 0.0, -0.0, kInf64, -1.0, 2.0});
  check_same(rsqrt, {0.5, kInf64, -kInf64, 0.0, kNaN64, 0.7071067811865475});
  CHECK(rsqrt[5] != std::numbers::sqrt2 / 2);
  check_same(unary<float>(Op::reciprocal, {4.0f, 0.0f, -0.0f, -kInf, 3.0f, kNaN}),
             {0.25f, kInf, -kInf, -0.0f, 1.0f / 3.0f, kNaN});
}

TEST_CASE("interpreter: exp, exp2 and expm1 are libm's") {
  check_same(unary<float>(Op::exp, {0.0f, -0.0f, -kInf, kInf, kNaN, 100.0f, -200.0f, 1.0f}),
             {1.0f, 1.0f, 0.0f, kInf, kNaN, kInf, 0.0f, std::exp(1.0f)});
  check_same(unary<double>(Op::exp, {1.0, -1.0}), {std::exp(1.0), std::exp(-1.0)});
  check_same(unary<float>(Op::exp2, {10.0f, -1.0f, -149.0f, -kInf, 128.0f}),
             {1024.0f, 0.5f, kDenormMin, 0.0f, kInf});
  check_same(unary<double>(Op::expm1, {0.0, -0.0, -kInf64, 1e-300, kNaN64}),
             {0.0, -0.0, -1.0, 1e-300, kNaN64});
}

TEST_CASE("interpreter: log, log2 and log1p are libm's") {
  check_same(unary<float>(Op::log, {1.0f, 0.0f, -0.0f, -1.0f, kInf, kNaN, 2.0f}),
             {0.0f, -kInf, -kInf, kNaN, kInf, kNaN, std::log(2.0f)});
  check_same(unary<double>(Op::log2, {8.0, 0.25, 0.0, -2.0, 1.0}),
             {3.0, -2.0, -kInf64, kNaN64, 0.0});
  check_same(unary<float>(Op::log2, {kDenormMin}), {-149.0f});
  check_same(unary<double>(Op::log1p, {0.0, -0.0, -1.0, -2.0, kInf64, 1e-300}),
             {0.0, -0.0, -kInf64, kNaN64, kInf64, 1e-300});
}

TEST_CASE("interpreter: sin, cos, tanh and erf are libm's") {
  check_same(unary<float>(Op::sin, {0.0f, -0.0f, kInf, kNaN, 1.0f}),
             {0.0f, -0.0f, kNaN, kNaN, std::sin(1.0f)});
  check_same(unary<double>(Op::cos, {0.0, -0.0, -kInf64, 2.0}), {1.0, 1.0, kNaN64, std::cos(2.0)});
  check_same(unary<float>(Op::tanh, {0.0f, -0.0f, kInf, -kInf, 20.0f, kNaN, 0.5f}),
             {0.0f, -0.0f, 1.0f, -1.0f, 1.0f, kNaN, std::tanh(0.5f)});
  check_same(unary<double>(Op::erf, {0.0, -0.0, kInf64, -kInf64, 10.0, 0.5}),
             {0.0, -0.0, 1.0, -1.0, 1.0, std::erf(0.5)});
}

// The composite activations (sigmoid, gelu, gelu_tanh, silu, softplus) are evaluated in a wider
// type by forms that do not cancel (scalar_ops.hpp): the expected values are their ops.def formulas
// evaluated with mpmath at 60 digits (the constants of scalar_ops.hpp rounded to the dtype) and
// rounded to the dtype.
TEST_CASE("interpreter: sigmoid is 1 / (1 + exp(-x)), subnormal results kept") {
  check_same(unary<float>(Op::sigmoid, {0.0f, -0.0f, kInf, -kInf, 100.0f, -100.0f, kNaN}),
             {0.5f, 0.5f, 1.0f, 0.0f, 1.0f, 3.78350585e-44f, kNaN});
  check_same(unary<double>(Op::sigmoid, {2.0}), {0.8807970779778824});
}

TEST_CASE("interpreter: relu propagates NaN and maps -0.0 to 0.0") {
  check_same(unary<float>(Op::relu,
                          {-1.0f, 2.5f, -0.0f, 0.0f, kNaN, -kInf, kInf, kDenormMin, -kDenormMin}),
             {0.0f, 2.5f, 0.0f, 0.0f, kNaN, 0.0f, kInf, kDenormMin, 0.0f});
  check_same(unary<std::int32_t>(Op::relu, {kInt32Min, -1, 0, 5}), {0, 0, 0, 5});
  check_same(unary<std::int64_t>(Op::relu, {kInt64Max, kInt64Min}), {kInt64Max, 0});
}

TEST_CASE("interpreter: gelu is (x * 0.5) * (1 + erf(x * (1/sqrt 2)))") {
  check_same(unary<double>(Op::gelu, {0.0, -0.0, 1.0, -1.0, kInf64, -kInf64, kNaN64, -7.25}),
             {0.0, -0.0, 0.8413447460685429, -0.15865525393145705, kInf64,
              kNaN64,  // -inf * 0.5 * (1 + erf(-inf)) = -inf * 0
              kNaN64, -1.5107971650372448e-12});
  check_same(unary<float>(Op::gelu, {2.0f, -5.0f}), {1.95449972f, -1.43325849e-06f});
}

TEST_CASE("interpreter: gelu_tanh is (0.5 * x) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))") {
  check_same(unary<float>(Op::gelu_tanh, {0.0f, -0.0f, 1.0f, kInf, -kInf, kNaN, -10.0f}),
             {0.0f, -0.0f, 0.841192007f, kInf, kNaN, kNaN, -1.20409239e-37f});
}

TEST_CASE("interpreter: silu is x / (1 + exp(-x))") {
  check_same(unary<float>(Op::silu, {0.0f, -0.0f, 1.0f, kInf, -kInf, -1000.0f, kNaN}),
             {0.0f, -0.0f, 0.731058598f, kInf, kNaN, -0.0f, kNaN});
}

TEST_CASE("interpreter: softplus is x above 20, else log1p(exp(x))") {
  check_same(unary<float>(Op::softplus, {0.0f, 30.0f, 20.0f, -kInf, kInf, kNaN, -200.0f}),
             {0.693147182f, 30.0f, 20.0f, 0.0f, kInf, kNaN, 0.0f});
  check_same(unary<double>(Op::softplus, {20.5, 20.0}), {20.5, 20.000000002061153});
}

TEST_CASE("interpreter: logical_not") {
  check_same(unary<bool>(Op::logical_not, {true, false}), {false, true});
}

TEST_CASE("interpreter: unary ops on rank-0 and empty tensors") {
  check_same(evaluate<float>(make_unary(Op::neg, input<float>(Shape{}, {2.0f}))), {-2.0f});
  Value empty = run({make_unary(Op::exp, input<float>(Shape{0, 3}, {}))}).at(0);
  CHECK(empty.layout.shape == Shape{0, 3});
  CHECK(read<float>(empty).empty());
}

TEST_CASE("interpreter: floor, ceil and trunc keep -0.0, inf and NaN; integers are unchanged") {
  check_same(unary<float>(Op::floor, {-0.5f, 0.5f, -0.0f, 2.0f, -kInf, kNaN, -1e30f, kDenormMin}),
             {-1.0f, 0.0f, -0.0f, 2.0f, -kInf, kNaN, -1e30f, 0.0f});
  check_same(unary<double>(Op::ceil, {-0.5, 0.5, -0.0, 2.0, kInf64, 1e300, -std::numeric_limits<double>::denorm_min()}),
             {-0.0, 1.0, -0.0, 2.0, kInf64, 1e300, -0.0});
  check_same(unary<float>(Op::trunc, {-1.75f, 1.75f, -0.25f, kNaN, 8388607.5f}),
             {-1.0f, 1.0f, -0.0f, kNaN, 8388607.0f});
  check_same(unary<std::int32_t>(Op::floor, {kInt32Min, -3, 7}), {kInt32Min, -3, 7});
  check_same(unary<std::int64_t>(Op::round, {kInt64Max, -1}), {kInt64Max, -1});
}

TEST_CASE("interpreter: round takes halves to the even neighbour (numpy.round), keeps the zero's sign") {
  check_same(unary<float>(Op::round, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f,
                                      -0.4f, 2.6f, 8388609.0f, kInf, kNaN}),
             {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 0.0f, -0.0f, 3.0f, 8388609.0f, kInf, kNaN});
  // 2^52 + 1 is odd and integral: it stays; 4503599627370495.5 is the last half below 2^52.
  check_same(unary<double>(Op::round, {4503599627370497.0, 4503599627370495.5, 3.5, -3.5, 1e-310}),
             {4503599627370497.0, 4503599627370496.0, 4.0, -4.0, 0.0});
}

TEST_CASE("interpreter: isnan, isinf and isfinite classify floats; integers and bools are finite") {
  const std::vector<float> values = {kNaN, -kNaN, kInf, -kInf, 0.0f, -0.0f, kDenormMin, 3e38f};
  auto classes = [&](Op op) { return unary<float, bool>(op, values); };
  check_same(classes(Op::isnan), {true, true, false, false, false, false, false, false});
  check_same(classes(Op::isinf), {false, false, true, true, false, false, false, false});
  check_same(classes(Op::isfinite), {false, false, false, false, true, true, true, true});
  check_same(unary<std::int32_t, bool>(Op::isfinite, {kInt32Min, 0}), {true, true});
  check_same(unary<bool, bool>(Op::isnan, {true, false}), {false, false});
  check_same(unary<std::int64_t, bool>(Op::isinf, {kInt64Max}), {false});
}

TEST_CASE("interpreter: tan and atan are libm's") {
  check_same(unary<float>(Op::tan, {0.0f, -0.0f, kInf, kNaN, 1.0f, 1e30f}),
             {0.0f, -0.0f, kNaN, kNaN, std::tan(1.0f), std::tan(1e30f)});
  check_same(unary<double>(Op::atan, {0.0, -0.0, kInf64, -kInf64, kNaN64, 0.5}),
             {0.0, -0.0, std::numbers::pi / 2, -std::numbers::pi / 2, kNaN64, std::atan(0.5)});
}
