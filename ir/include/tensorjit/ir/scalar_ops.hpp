// The scalar semantics of every elementwise op of ops.def, on C++ values: the one definition that
// the reference interpreter applies element by element, that canonicalize uses to fold constants,
// and that the JIT's tests compare against bit for bit.
//
// ScalarOp<op>::apply(x...) is defined for each unary, binary and ternary op, templated on the C++
// type of the operands (float, double, int32_t, int64_t, bool; only the dtypes ops.def allows for
// the op are meant to be instantiated: see accepts_operand). Comparisons return bool, where takes
// (bool, T, T), and cast is ScalarOp<Op::cast>::apply<To>(x).
//
// Rules shared by all ops (docs/contracts.md, contract 4):
//   - floats: IEEE arithmetic in the operands' own type, no contraction (a*b + c is two roundings;
//     the project builds with -ffp-contract=off), transcendental functions from libm in the
//     operands' precision (expf for f32, exp for f64), -0.0 and subnormals as libm gives them;
//     the composite activations (sigmoid, silu, gelu, gelu_tanh, softplus) in a wider type, by
//     forms that do not cancel, rounded once (below, "Composite activations");
//   - integers: no undefined behaviour; add, sub, mul, neg, abs and square wrap (computed in the
//     unsigned type); division, modulo, shifts and pow are defined for every operand (see each op);
//   - bool is 0 or 1.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/op.hpp>
#include <tensorjit/ir/philox.hpp>

namespace tensorjit::ir {

// f16 and bf16 elements compute in f32 (dtype.hpp): ComputeType<T> is float for them and T
// otherwise; widen converts an element to it (exactly), narrow rounds a result back to storage.
template <typename T> using ComputeType = std::conditional_t<is_storage_float_v<T>, float, T>;
template <typename T> ComputeType<T> widen(T x) {
  if constexpr (is_storage_float_v<T>) return static_cast<float>(x);
  else return x;
}
template <typename T, typename C> T narrow(C x) {
  if constexpr (is_storage_float_v<T>) return T(static_cast<float>(x));
  else return x;
}

// Whether an operand of C++ type T is allowed by an ops.def operand kind (f16 and bf16: as f32).
template <typename Stored> constexpr bool accepts_operand(OperandKind kind) {
  using T = ComputeType<Stored>;
  switch (kind) {
    case OperandKind::any: return true;
    case OperandKind::numeric: return !std::is_same_v<T, bool>;
    case OperandKind::floating: return std::is_floating_point_v<T>;
    case OperandKind::integer: return std::is_integral_v<T> && !std::is_same_v<T, bool>;
    case OperandKind::boolean: return std::is_same_v<T, bool>;
    case OperandKind::wide: return std::is_same_v<T, std::int64_t>;
  }
  return false;
}

// ---- integer arithmetic without undefined behaviour ----

// Two's complement wrap-around: computed in the unsigned type, converted back (modular, C++20).
template <typename T> T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapping_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T> T wrapping_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// The constants of the activation formulas, rounded from these decimal literals to double and
// then to T. The JIT must use the same values to give the same bits.
template <typename T> inline constexpr T kInverseSqrt2 = static_cast<T>(0.70710678118654752440);
template <typename T> inline constexpr T kSqrt2OverPi = static_cast<T>(0.79788456080286535588);
template <typename T> inline constexpr T kGeluTanhCubic = static_cast<T>(0.044715);
template <typename T> inline constexpr T kSoftplusThreshold = static_cast<T>(20);

// ---- composite activations ----
//
// sigmoid, silu, gelu, gelu_tanh and softplus are their ops.def formulas (with the constants above
// rounded to T), evaluated in Wider<T> by forms that neither cancel nor overflow, and rounded to T
// once. Written literally in T they lost everything where 1 + erf(u) or 1 + exp(-x) cancels or
// overflows: f64 gelu(-7.25) gave -0.0 for -1.5e-12, f32 gelu(-5) was 4% off, f32 sigmoid(-100)
// gave 0 for a subnormal, and the constant folder (canonicalize), which calls these same
// functions, gave those values for tj::scalar operands while the JIT's vector math was right.
// Now they are within about 0.5 ulp of the exact value (libm's double and long double functions
// are within 1-2 ulp of their own type), the JIT within its documented bound of it
// (docs/vector_math.md). Where long double is double (MSVC, Apple arm64), f64 results still do
// not cancel but round several times, and subnormal silu and gelu_tanh results lose bits.
template <typename T> using Wider = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// 1 / (1 + exp(-a)) for a >= 0, and exp(a) / (1 + exp(a)) below, which neither overflows nor
// flushes a subnormal result to 0. NaN gives NaN.
template <typename W> W stable_sigmoid(W a) {
  if (a >= W{0}) return W{1} / (W{1} + std::exp(-a));
  const W e = std::exp(a);
  return e / (W{1} + e);
}

// Specialised below for every unary, binary and ternary op. The interpreter's and evaluate_scalar's
// dispatch tables instantiate ScalarOp<op> for each elementwise op of ops.def, so a new op does not
// compile until its scalar semantics are written here.
template <Op op> struct ScalarOp;

// ---- unary ----

// copy: the value itself (copy only changes the layout).
template <> struct ScalarOp<Op::copy> {
  template <typename T> static T apply(T x) { return x; }
};
// detach: the value itself; it only stops gradients (ir/src/vjp_table.cpp).
template <> struct ScalarOp<Op::detach> {
  template <typename T> static T apply(T x) { return x; }
};

// cast to To (the node's dtype):
//   - to bool: x != 0, so NaN -> true and -0.0 -> false;
//   - from bool: 0 or 1;
//   - float -> integer: truncation toward zero, saturating to [INT_MIN, INT_MAX], NaN -> 0;
//   - integer -> integer: wraps to the low bits (i64 -> i32 keeps the low 32 bits);
//   - integer -> float and f64 -> f32: round to nearest even; f64 -> f32 overflows to +-inf (IEEE
//     754 conversion, which GCC and Clang implement on every target we build for).
template <> struct ScalarOp<Op::cast> {
  template <typename To, typename From> static To apply(From x) {
    if constexpr (std::is_same_v<To, From>) {
      return x;
    } else if constexpr (std::is_same_v<To, bool>) {
      return x != From(0);
    } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
      // 2^digits is a power of two, exact in every float type: the first value out of range.
      constexpr From limit = static_cast<From>(std::uint64_t{1} << std::numeric_limits<To>::digits);
      if (std::isnan(x)) return 0;
      if (x >= limit) return std::numeric_limits<To>::max();
      if (x < -limit) return std::numeric_limits<To>::min();
      return static_cast<To>(x);  // |x| < 2^digits or x == -2^digits: in range after truncation
    } else {
      return static_cast<To>(x);
    }
  }
};

// neg: -x. Floats flip the sign bit (of zeros and NaN too); integers wrap: neg(INT_MIN) == INT_MIN.
template <> struct ScalarOp<Op::neg> {
  template <typename T> static T apply(T x) {
    if constexpr (std::is_integral_v<T>) return wrapping_sub(T{0}, x);
    else return -x;
  }
};

// abs: floats clear the sign bit (fabs: abs(-0.0) == 0.0, abs(-NaN) == NaN); integers wrap:
// abs(INT_MIN) == INT_MIN.
template <> struct ScalarOp<Op::abs> {
  template <typename T> static T apply(T x) {
    if constexpr (std::is_integral_v<T>) return x < 0 ? wrapping_sub(T{0}, x) : x;
    else return std::fabs(x);
  }
};

// sign: -1, 0 or 1; for floats sign(NaN) is that NaN and sign(+-0.0) is the same zero.
template <> struct ScalarOp<Op::sign> {
  template <typename T> static T apply(T x) {
    if (x > T{0}) return T{1};
    if (x < T{0}) return T{-1};
    return x;  // zero of either sign, or NaN
  }
};

// square: x * x (integers wrap).
template <> struct ScalarOp<Op::square> {
  template <typename T> static T apply(T x) {
    if constexpr (std::is_integral_v<T>) return wrapping_mul(x, x);
    else return x * x;
  }
};

// sqrt: libm (correctly rounded by IEEE); sqrt(-0.0) == -0.0, sqrt(x < 0) is NaN.
template <> struct ScalarOp<Op::sqrt> {
  template <typename T> static T apply(T x) { return std::sqrt(x); }
};

// rsqrt: 1 / sqrt(x), two roundings; rsqrt(+0) == +inf, rsqrt(-0) == -inf.
template <> struct ScalarOp<Op::rsqrt> {
  template <typename T> static T apply(T x) { return T{1} / std::sqrt(x); }
};

// reciprocal: 1 / x; 1 / +-0 == +-inf.
template <> struct ScalarOp<Op::reciprocal> {
  template <typename T> static T apply(T x) { return T{1} / x; }
};

// The libm functions, in the operands' precision (std:: overloads: expf for float, exp for double).
template <> struct ScalarOp<Op::exp> {
  template <typename T> static T apply(T x) { return std::exp(x); }
};
template <> struct ScalarOp<Op::exp2> {
  template <typename T> static T apply(T x) { return std::exp2(x); }
};
template <> struct ScalarOp<Op::expm1> {
  template <typename T> static T apply(T x) { return std::expm1(x); }
};
template <> struct ScalarOp<Op::log> {
  template <typename T> static T apply(T x) { return std::log(x); }
};
template <> struct ScalarOp<Op::log2> {
  template <typename T> static T apply(T x) { return std::log2(x); }
};
template <> struct ScalarOp<Op::log1p> {
  template <typename T> static T apply(T x) { return std::log1p(x); }
};
template <> struct ScalarOp<Op::sin> {
  template <typename T> static T apply(T x) { return std::sin(x); }
};
template <> struct ScalarOp<Op::cos> {
  template <typename T> static T apply(T x) { return std::cos(x); }
};
template <> struct ScalarOp<Op::tanh> {
  template <typename T> static T apply(T x) { return std::tanh(x); }
};
template <> struct ScalarOp<Op::erf> {
  template <typename T> static T apply(T x) { return std::erf(x); }
};

// sigmoid: 1 / (1 + exp(-x)) (a composite activation, above); sigmoid(-inf) == 0,
// sigmoid(inf) == 1.
template <> struct ScalarOp<Op::sigmoid> {
  template <typename T> static T apply(T x) {
    return static_cast<T>(stable_sigmoid(static_cast<Wider<T>>(x)));
  }
};

// relu: x > 0 ? x : 0, except that NaN gives the NaN; relu(-0.0) == +0.0.
template <> struct ScalarOp<Op::relu> {
  template <typename T> static T apply(T x) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    return x > T{0} ? x : T{0};
  }
};

// gelu: (x * 0.5) * (1 + erf(x * kInverseSqrt2)) (PyTorch's formula; a composite activation,
// above), as 0.5 x erfc(-u) with u = x kInverseSqrt2: 1 + erf(u) cancels for x < 0, erfc does
// not. gelu(inf) == inf, gelu(-inf) is NaN (-inf * 0), as the formula gives.
template <> struct ScalarOp<Op::gelu> {
  template <typename T> static T apply(T x) {
    using W = Wider<T>;
    const W wide = x;
    return static_cast<T>(W{0.5} * wide * std::erfc(-(wide * W{kInverseSqrt2<T>})));
  }
};

// gelu_tanh: ((0.5 * x) * (1 + tanh(v))), v = kSqrt2OverPi * (x + kGeluTanhCubic * ((x * x) * x))
// (PyTorch's approximate="tanh"; a composite activation, above), as x sigmoid(2v), the same value
// without 1 + tanh(v)'s cancellation for x < 0. gelu_tanh(-inf) is NaN (-inf * 0).
template <> struct ScalarOp<Op::gelu_tanh> {
  template <typename T> static T apply(T x) {
    using W = Wider<T>;
    const W wide = x;
    const W v = W{kSqrt2OverPi<T>} * (wide + W{kGeluTanhCubic<T>} * (wide * wide * wide));
    return static_cast<T>(wide * stable_sigmoid(W{2} * v));
  }
};

// silu: x / (1 + exp(-x)) (PyTorch's formula; a composite activation, above), as x sigmoid(x),
// whose exp(-x) does not overflow for x < 0. silu(-inf) is NaN (-inf * 0).
template <> struct ScalarOp<Op::silu> {
  template <typename T> static T apply(T x) {
    const Wider<T> wide = x;
    return static_cast<T>(wide * stable_sigmoid(wide));
  }
};

// softplus: x for x > 20 (PyTorch's threshold), else log1p(exp(x)) (a composite activation,
// above: in the wider type exp(x) stays normal where the result is subnormal); NaN gives NaN.
template <> struct ScalarOp<Op::softplus> {
  template <typename T> static T apply(T x) {
    if (x > kSoftplusThreshold<T>) return x;
    return static_cast<T>(std::log1p(std::exp(static_cast<Wider<T>>(x))));
  }
};

template <> struct ScalarOp<Op::logical_not> {
  static bool apply(bool x) { return !x; }
};

// `rounding(x)` for floats; integers are integral already and are returned unchanged.
template <typename T, typename Rounding> T round_floats(T x, Rounding rounding) {
  if constexpr (std::is_floating_point_v<T>) return rounding(x);
  else return x;
}

// floor, ceil, trunc: libm's (exact; -0.0, +-inf and NaN give themselves, floor(-0.5) == -1.0,
// ceil(-0.5) == -0.0). On integers the value itself.
template <> struct ScalarOp<Op::floor> {
  template <typename T> static T apply(T x) { return round_floats(x, [](auto v) { return std::floor(v); }); }
};
template <> struct ScalarOp<Op::ceil> {
  template <typename T> static T apply(T x) { return round_floats(x, [](auto v) { return std::ceil(v); }); }
};
template <> struct ScalarOp<Op::trunc> {
  template <typename T> static T apply(T x) { return round_floats(x, [](auto v) { return std::trunc(v); }); }
};

// round: the nearest integer, a tie to the even one (numpy.round, torch.round, IEEE
// roundToIntegralTiesToEven): round(0.5) == 0.0, round(1.5) == 2.0, round(-2.5) == -2.0, the sign
// of a zero result kept (round(-0.4) == -0.0). Not std::round (ties away from zero) and not
// nearbyint (the rounding mode's). A tie lies at |x| >= 0.5, where x / 2 is exact.
template <> struct ScalarOp<Op::round> {
  template <typename T> static T apply(T x) {
    return round_floats(x, [](auto v) {
      if (std::fabs(v - std::trunc(v)) != decltype(v){0.5}) return std::round(v);
      return 2 * std::round(v / 2);  // the even neighbour of the tie
    });
  }
};

// isnan, isinf, isfinite: the IEEE classes; integers and bools are finite numbers.
template <typename T, typename Test> bool float_class(T x, Test test, bool of_integers) {
  if constexpr (std::is_floating_point_v<T>) return test(x);
  else return of_integers;
}
template <> struct ScalarOp<Op::isnan> {
  template <typename T> static bool apply(T x) {
    return float_class(x, [](auto v) { return std::isnan(v); }, false);
  }
};
template <> struct ScalarOp<Op::isinf> {
  template <typename T> static bool apply(T x) {
    return float_class(x, [](auto v) { return std::isinf(v); }, false);
  }
};
template <> struct ScalarOp<Op::isfinite> {
  template <typename T> static bool apply(T x) {
    return float_class(x, [](auto v) { return std::isfinite(v); }, true);
  }
};

// tan, atan: libm's, in the operand's precision (tan(-0.0) == -0.0, atan(+-inf) == +-pi/2
// rounded).
template <> struct ScalarOp<Op::tan> {
  template <typename T> static T apply(T x) { return std::tan(x); }
};
template <> struct ScalarOp<Op::atan> {
  template <typename T> static T apply(T x) { return std::atan(x); }
};

// ---- binary ----

// add, sub, mul: IEEE for floats; integers wrap.
template <> struct ScalarOp<Op::add> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return wrapping_add(a, b);
    else return a + b;
  }
};
template <> struct ScalarOp<Op::sub> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return wrapping_sub(a, b);
    else return a - b;
  }
};
template <> struct ScalarOp<Op::mul> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return wrapping_mul(a, b);
    else return a * b;
  }
};

// div: floats IEEE true division (x / 0 is +-inf or NaN). Integers: floor division (Python's //),
// x / 0 == 0, INT_MIN / -1 == INT_MIN (wraps).
template <> struct ScalarOp<Op::div> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return a / b;
    } else {
      if (b == 0) return 0;
      if (b == -1) return wrapping_sub(T{0}, a);  // a / -1 would overflow for INT_MIN
      T quotient = a / b;                          // truncated toward zero
      T remainder = a % b;
      if (remainder != 0 && ((remainder < 0) != (b < 0))) --quotient;
      return quotient;
    }
  }
};

// mod: the remainder with the sign of the divisor (Python's %, numpy.remainder).
// Integers: x % 0 == 0, INT_MIN % -1 == 0. Floats: fmod, then + b when the signs differ; a zero
// result takes the divisor's sign (mod(-0.0, 3) == 0.0, mod(3, -3) == -0.0); x % 0 is NaN,
// mod(-5, inf) == inf and mod(5, inf) == 5 as in Python.
template <> struct ScalarOp<Op::mod> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      T remainder = std::fmod(a, b);
      if (remainder == T{0}) return std::copysign(T{0}, b);
      if ((remainder < T{0}) != (b < T{0})) remainder += b;
      return remainder;
    } else {
      if (b == 0 || b == -1) return 0;  // % -1 would overflow for INT_MIN
      T remainder = a % b;
      // |remainder| < |b| and the signs differ, so the sum cannot overflow.
      if (remainder != 0 && ((remainder < 0) != (b < 0))) remainder += b;
      return remainder;
    }
  }
};

// pow: floats libm pow (pow(x, 0) == 1 even for NaN x, pow(1, y) == 1 even for NaN y).
// Integers: repeated squaring with wrap-around; a negative exponent gives 0, except 1 for base 1
// and +-1 (by the exponent's parity) for base -1; pow(0, 0) == 1.
template <> struct ScalarOp<Op::pow> {
  template <typename T> static T apply(T base, T exponent) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(base, exponent);
    } else {
      if (exponent < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exponent & 1) != 0 ? T{-1} : T{1};
        return 0;
      }
      T result = 1;
      while (exponent != 0) {
        if ((exponent & 1) != 0) result = wrapping_mul(result, base);
        base = wrapping_mul(base, base);
        exponent >>= 1;
      }
      return result;
    }
  }
};

// maximum, minimum: numpy's (a >= b || isnan(a)) ? a : b. A NaN operand is returned (the first one
// when both are); on a tie the first operand wins, so maximum(-0.0, 0.0) == -0.0 and
// maximum(0.0, -0.0) == 0.0 (numpy, and PyTorch's scalar CPU path).
template <> struct ScalarOp<Op::maximum> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
    }
    return a >= b ? a : b;
  }
};
template <> struct ScalarOp<Op::minimum> {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
    }
    return a <= b ? a : b;
  }
};

// Comparisons: IEEE (every comparison with NaN is false except ne; -0.0 == 0.0); false < true.
template <> struct ScalarOp<Op::eq> {
  template <typename T> static bool apply(T a, T b) { return a == b; }
};
template <> struct ScalarOp<Op::ne> {
  template <typename T> static bool apply(T a, T b) { return a != b; }
};
template <> struct ScalarOp<Op::lt> {
  template <typename T> static bool apply(T a, T b) { return a < b; }
};
template <> struct ScalarOp<Op::le> {
  template <typename T> static bool apply(T a, T b) { return a <= b; }
};
template <> struct ScalarOp<Op::gt> {
  template <typename T> static bool apply(T a, T b) { return a > b; }
};
template <> struct ScalarOp<Op::ge> {
  template <typename T> static bool apply(T a, T b) { return a >= b; }
};

template <> struct ScalarOp<Op::logical_and> {
  static bool apply(bool a, bool b) { return a && b; }
};
template <> struct ScalarOp<Op::logical_or> {
  static bool apply(bool a, bool b) { return a || b; }
};

// Bitwise ops on the two's complement bits.
template <> struct ScalarOp<Op::bitwise_and> {
  template <typename T> static T apply(T a, T b) { return a & b; }
};
template <> struct ScalarOp<Op::bitwise_or> {
  template <typename T> static T apply(T a, T b) { return a | b; }
};
template <> struct ScalarOp<Op::bitwise_xor> {
  template <typename T> static T apply(T a, T b) { return a ^ b; }
};

// left_shift: the bits of a shifted left by s (bits shifted out are lost, so 1 << 31 == INT_MIN
// for i32); s outside [0, bits) gives 0.
template <> struct ScalarOp<Op::left_shift> {
  template <typename T> static T apply(T a, T s) {
    using U = std::make_unsigned_t<T>;
    if (s < 0 || s >= std::numeric_limits<U>::digits) return 0;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << s));
  }
};

// right_shift: arithmetic (sign-filling); s outside [0, bits) gives -1 for negative a, else 0.
template <> struct ScalarOp<Op::right_shift> {
  template <typename T> static T apply(T a, T s) {
    if (s < 0 || s >= std::numeric_limits<std::make_unsigned_t<T>>::digits) return a < 0 ? -1 : 0;
    return static_cast<T>(a >> s);
  }
};

// atan2(y, x): libm's, with C99 Annex F's special cases (atan2(+-0, -0) == +-pi,
// atan2(+-inf, -inf) == +-3pi/4, the result's sign y's).
template <> struct ScalarOp<Op::atan2> {
  template <typename T> static T apply(T y, T x) { return std::atan2(y, x); }
};

// Random bits: word index % 4 of the Philox4x32-10 block at index / 4 under the key (philox.hpp).
template <> struct ScalarOp<Op::philox> {
  static std::int32_t apply(std::int64_t key, std::int64_t index) { return philox_word(key, index); }
};

// ---- ternary ----

template <> struct ScalarOp<Op::where> {
  template <typename T> static T apply(bool condition, T a, T b) { return condition ? a : b; }
};

// ---- on stored elements ----

// ScalarOp<op> on elements as stored: f16 and bf16 operands are widened to float, the op computes
// in float, and a floating result is rounded back to the operands' storage type (comparisons give
// bool). The interpreter and constant folding apply ops through these; the JIT does the same
// conversions in registers.
template <Op op> struct StoredOp {
  template <typename T> using Result = std::conditional_t<
      is_storage_float_v<T> &&
          std::is_same_v<decltype(ScalarOp<op>::apply(ComputeType<T>{})), float>,
      T, decltype(ScalarOp<op>::apply(ComputeType<T>{}))>;
  template <typename T> static auto apply(T x) {
    return narrow<Result<T>>(ScalarOp<op>::apply(widen(x)));
  }
  template <typename T> static auto apply(T a, T b) {
    using R = decltype(ScalarOp<op>::apply(ComputeType<T>{}, ComputeType<T>{}));
    using Stored = std::conditional_t<is_storage_float_v<T> && std::is_same_v<R, float>, T, R>;
    return narrow<Stored>(ScalarOp<op>::apply(widen(a), widen(b)));
  }
  template <typename T> static T apply(bool condition, T a, T b) {
    return narrow<T>(ScalarOp<op>::apply(condition, widen(a), widen(b)));
  }
  // cast: From -> To, through f32 when either is f16 or bf16.
  template <typename To, typename From> static To apply_cast(From x) {
    return narrow<To>(ScalarOp<Op::cast>::template apply<ComputeType<To>>(widen(x)));
  }
};

// ---- on Scalar values (constant folding) ----

// The value of a Scalar holding a `dtype` value as C++ type T == dtype_traits<dtype>::type (floats
// read `f`, integers and bool read `i`), and back.
template <typename T> T scalar_value(const Scalar& scalar) {
  if constexpr (is_storage_float_v<T>) return T(static_cast<float>(scalar.f));
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(scalar.f);
  else if constexpr (std::is_same_v<T, bool>) return scalar.i != 0;
  else return static_cast<T>(scalar.i);
}
template <typename T> Scalar make_scalar(T value) {
  Scalar scalar;
  if constexpr (is_storage_float_v<T>) scalar.f = static_cast<float>(value);
  else if constexpr (std::is_floating_point_v<T>) scalar.f = value;
  else scalar.i = static_cast<std::int64_t>(value);
  return scalar;
}

// The elementwise op `op` applied to scalar operands, exactly as the interpreter applies it to each
// element. `operand_dtype` is the dtype of the operands (for where, of the two value operands; the
// condition is bool); `result_dtype` is the node's dtype (for cast, the target). Throws
// InternalError for a non-elementwise op, a wrong operand count or a dtype the op does not take.
Scalar evaluate_scalar(Op op, DType operand_dtype, DType result_dtype,
                       std::span<const Scalar> operands);

}  // namespace tensorjit::ir
