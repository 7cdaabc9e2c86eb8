// The documented error bounds of the vector math ops (docs/vector_math.md), their references and
// the ulp measures: LLVM-free, shared by tests/codegen and tests/runtime.
//
// References: for f32, the op's formula evaluated in double (libm's double functions are within
// 1 ulp of f64, i.e. 2^-29 ulp of f32); for f64, in long double (x87, 64-bit significand: 2^-11
// ulp of f64). The error of a result is |result - reference| in units of the last place of the
// reference in the result's format (subnormal ulp below the normal range), so a correctly rounded
// result has an error of at most 0.5.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/op.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen::testing {

namespace ir = tensorjit::ir;

// The ops emitted by codegen/src/vector_math and their bounds in ulp (docs/vector_math.md). sin and
// cos (and tan) are bounded on |x| <= 2^30 (libm beyond), softplus per its ops.def definition (x
// above 20). pow and atan2 take two operands (x, y in the references: pow(x, y), atan2(x, y)).
struct VectorMathBound {
  ir::Op op;
  double f32;
  double f64;
};

inline constexpr VectorMathBound kVectorMathBounds[] = {
    {ir::Op::exp, 1, 1},       {ir::Op::exp2, 1, 1},      {ir::Op::log, 1, 1},
    {ir::Op::log2, 1, 1},      {ir::Op::expm1, 2, 2},     {ir::Op::log1p, 2, 2},
    {ir::Op::sin, 2, 2},       {ir::Op::cos, 2, 2},       {ir::Op::tanh, 2, 2},
    {ir::Op::sigmoid, 2, 2},   {ir::Op::erf, 2, 2},       {ir::Op::pow, 2, 2},
    {ir::Op::gelu, 2, 4},      {ir::Op::gelu_tanh, 2, 4}, {ir::Op::silu, 2, 4},
    {ir::Op::softplus, 2, 4},  {ir::Op::tan, 2, 2},       {ir::Op::atan, 1, 1},
    {ir::Op::atan2, 1, 2},
};

inline const VectorMathBound* vector_math_bound(ir::Op op) {
  for (const auto& bound : kVectorMathBounds)
    if (bound.op == op) return &bound;
  return nullptr;
}

inline std::vector<ir::Op> vector_math_ops() {
  std::vector<ir::Op> ops;
  for (const auto& bound : kVectorMathBounds) ops.push_back(bound.op);
  return ops;
}

inline double ulp_bound(ir::Op op, DType dtype) {
  const VectorMathBound* bound = vector_math_bound(op);
  return bound == nullptr ? 0.0 : dtype == DType::f32 ? bound->f32 : bound->f64;
}

// The distance allowed between the JIT and the interpreter: the bound plus two ulp for the
// interpreter's own error (glibc's libm documents at most 1-2 ulp for these functions; the
// composites, evaluated in a wider type, are within about 0.5 ulp). 0 for every other op.
inline double interpreter_tolerance(ir::Op op, DType dtype) {
  const double bound = ulp_bound(op, dtype);
  return bound == 0 ? 0.0 : bound + 2;
}

// How many representable values of T lie between a and b (0 for equal values, +0 and -0 equal,
// any NaN equal to any NaN; infinite when only one is NaN).
template <typename T> double ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<double>::infinity();
  }
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  // The bits ordered as integers (negative values below zero), subtracted as integers: an f64's
  // bits as a double are 512 or 1024 apart near 1, so one ulp measured 512.
  auto ordered = [](T value) -> std::int64_t {
    Bits bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits < 0 ? -static_cast<std::int64_t>(bits & std::numeric_limits<Bits>::max()) : bits;
  };
  const std::int64_t low = std::min(ordered(a), ordered(b)), high = std::max(ordered(a), ordered(b));
  return static_cast<double>(static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low));
}

// The op's value in precision R (double for f32 results, long double for f64), following the
// formulas of ops.def with the constants of ir/scalar_ops.hpp rounded to T.
template <typename T, typename R> R reference(ir::Op op, R x, R y = 0) {
  using std::exp, std::log, std::log1p;
  switch (op) {
    case ir::Op::exp: return exp(x);
    case ir::Op::exp2: return std::exp2(x);
    case ir::Op::expm1: return std::expm1(x);
    case ir::Op::log: return log(x);
    case ir::Op::log2: return std::log2(x);
    case ir::Op::log1p: return log1p(x);
    case ir::Op::sin: return std::sin(x);
    case ir::Op::cos: return std::cos(x);
    case ir::Op::tanh: return std::tanh(x);
    case ir::Op::erf: return std::erf(x);
    case ir::Op::pow: return std::pow(x, y);
    case ir::Op::tan: return std::tan(x);
    case ir::Op::atan: return std::atan(x);
    case ir::Op::atan2: return std::atan2(x, y);
    case ir::Op::sigmoid: return R(1) / (R(1) + exp(-x));
    case ir::Op::silu: return x / (R(1) + exp(-x));
    case ir::Op::softplus: return x > R(ir::kSoftplusThreshold<T>) ? x : log1p(exp(x));
    case ir::Op::gelu:  // 1 + erf(u) = erfc(-u), without cancellation
      return x * R(0.5) * std::erfc(-(x * R(ir::kInverseSqrt2<T>)));
    case ir::Op::gelu_tanh: {  // (0.5 x)(1 + tanh(v)) = x / (1 + exp(-2 v))
      R v = R(ir::kSqrt2OverPi<T>) * (x + R(ir::kGeluTanhCubic<T>) * (x * x * x));
      return x / (R(1) + exp(R(-2) * v));
    }
    default: return std::numeric_limits<R>::quiet_NaN();
  }
}

template <typename T> using ReferenceType = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// |actual - exact| in ulp of T at `exact`; 0 when both are NaN or the same infinity, infinite
// when only one is NaN or infinite (after rounding `exact` to T).
template <typename T, typename R> double ulp_error(T actual, R exact) {
  constexpr double kInfinite = std::numeric_limits<double>::infinity();
  if (std::isnan(exact) || std::isnan(actual)) return std::isnan(exact) && std::isnan(actual) ? 0 : kInfinite;
  const T rounded = static_cast<T>(exact);
  if (std::isinf(rounded) || std::isinf(actual)) return actual == rounded ? 0 : kInfinite;
  using limits = std::numeric_limits<T>;
  int exponent = 0;
  std::frexp(exact, &exponent);  // exact = f 2^exponent, f in [0.5, 1)
  const int ulp_exponent =
      exact == 0 ? limits::min_exponent - limits::digits
                 : std::max(exponent - limits::digits, limits::min_exponent - limits::digits);
  const R difference = std::fabs(static_cast<R>(actual) - exact);
  return static_cast<double>(std::ldexp(difference, -ulp_exponent));
}

// Whether `actual` is an acceptable JIT result of `op` given the interpreter's value: within
// interpreter_tolerance of it. The interpreter evaluates the composites without cancellation
// (scalar_ops.hpp), so the JIT meets it everywhere, the extremes included.
template <typename T> bool acceptable_result(ir::Op op, T actual, T interpreter_value) {
  const DType dtype = sizeof(T) == 4 ? DType::f32 : DType::f64;
  return ulp_distance(actual, interpreter_value) <= interpreter_tolerance(op, dtype);
}

}  // namespace tensorjit::codegen::testing
