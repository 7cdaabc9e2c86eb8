// Element types of tensors. Part of the public API (re-exported by <tensorjit/tensorjit.hpp>).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tensorjit {

// f16 (IEEE binary16) and bf16 (bfloat16) are storage types, as in PyTorch: every op converts its
// operands to f32 (exactly), computes in f32 and rounds its result to the dtype (round to nearest
// even, NaN kept and quieted, overflow to inf), so a fused chain gives op-by-op bits.
enum class DType : std::uint8_t { f32, f64, i32, i64, boolean, f16, bf16 };

inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType boolean = DType::boolean;
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;

inline constexpr int kDTypeCount = 7;

// ---- f16 and bf16 values: the one software conversion (the interpreter's, the files', printing's) ----
//
// Integer operations only, so the bits do not depend on the floating-point environment. They are
// the bits of the x86 hardware where it agrees (F16C's vcvtps2ph/vcvtph2ps for f16, checked over
// all 2^32 floats): a NaN keeps its sign and the top bits of its payload and becomes quiet.
// bf16 rounds in software everywhere: AVX-512 BF16's vcvtneps2bf16 flushes subnormals to zero.

// The f16 nearest to `value` (ties to even); beyond 65520 in magnitude, inf.
constexpr std::uint16_t f16_bits_from_float(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  const std::uint32_t magnitude = bits & 0x7FFFFFFF;
  if (magnitude > 0x7F800000) return sign | 0x7E00 | ((magnitude >> 13) & 0x3FF);  // NaN
  if (magnitude >= 0x477FF000) return sign | 0x7C00;  // 65520 and above round to inf
  if (magnitude >= 0x38800000) {                       // a normal f16 (2^-14 and above)
    std::uint32_t rebiased = magnitude - 0x38000000;   // exponent bias 127 -> 15
    rebiased += 0x0FFF + ((rebiased >> 13) & 1);       // to nearest even at bit 13 (a carry is exact)
    return sign | static_cast<std::uint16_t>(rebiased >> 13);
  }
  if (magnitude <= 0x33000000) return sign;  // 2^-25 and below: half the least subnormal or less
  // A subnormal f16: the 24-bit significand in units of 2^-24, rounded to nearest even.
  const std::uint32_t shift = 126 - (magnitude >> 23);  // 14 to 24
  const std::uint32_t significand = (magnitude & 0x7FFFFF) | 0x800000;
  std::uint32_t units = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (units & 1) != 0)) ++units;
  return sign | static_cast<std::uint16_t>(units);
}

// The f16 `bits` as a float (exact).
constexpr float float_from_f16_bits(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1F;
  std::uint32_t mantissa = bits & 0x3FF;
  if (exponent == 0x1F)
    return std::bit_cast<float>(sign | (mantissa == 0 ? 0x7F800000u : 0x7FC00000u | (mantissa << 13)));
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);
  std::uint32_t normalized = 113;  // a subnormal f16 is a normal float
  while ((mantissa & 0x400) == 0) {
    mantissa <<= 1;
    --normalized;
  }
  return std::bit_cast<float>(sign | (normalized << 23) | ((mantissa & 0x3FF) << 13));
}

// The bf16 nearest to `value` (ties to even, subnormals kept): the top half of the float, rounded.
constexpr std::uint16_t bf16_bits_from_float(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return static_cast<std::uint16_t>((bits >> 16) | 0x40);  // NaN
  return static_cast<std::uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

// The bf16 `bits` as a float (exact).
constexpr float float_from_bf16_bits(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// An f16 or bf16 element as stored: its bits. It converts to float exactly and from float by
// rounding; it has no arithmetic (tensors compute in f32 and round, as each op does).
struct float16_t {
  std::uint16_t bits = 0;
  constexpr float16_t() = default;
  constexpr explicit float16_t(float value) : bits(f16_bits_from_float(value)) {}
  constexpr explicit operator float() const { return float_from_f16_bits(bits); }
  static constexpr float16_t from_bits(std::uint16_t b) { float16_t v; v.bits = b; return v; }
};
struct bfloat16_t {
  std::uint16_t bits = 0;
  constexpr bfloat16_t() = default;
  constexpr explicit bfloat16_t(float value) : bits(bf16_bits_from_float(value)) {}
  constexpr explicit operator float() const { return float_from_bf16_bits(bits); }
  static constexpr bfloat16_t from_bits(std::uint16_t b) { bfloat16_t v; v.bits = b; return v; }
};

// Whether T is float16_t or bfloat16_t: stored as 16 bits, computed as float.
template <typename T>
inline constexpr bool is_storage_float_v = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

constexpr std::size_t itemsize(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
    case DType::f16: return 2;
    case DType::bf16: return 2;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

constexpr bool is_floating(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
}
// f16 and bf16: floating types that compute in f32 (above).
constexpr bool is_storage_float(DType t) { return t == DType::f16 || t == DType::bf16; }
constexpr bool is_integer(DType t) { return t == DType::i32 || t == DType::i64; }
constexpr bool is_bool(DType t) { return t == DType::boolean; }

// PyTorch's promotion of two tensor dtypes: bool < integers < floating, the wider within a kind;
// f16 and bf16 rank below f32, and f16 with bf16 is f32 (neither holds the other's values).
constexpr DType promote_types(DType a, DType b) {
  auto rank = [](DType t) {
    switch (t) {
      case DType::boolean: return 0;
      case DType::i32: return 1;
      case DType::i64: return 2;
      case DType::f16: return 3;
      case DType::bf16: return 3;
      case DType::f32: return 4;
      case DType::f64: return 5;
    }
    return 0;
  };
  if (a != b && is_storage_float(a) && is_storage_float(b)) return DType::f32;
  return rank(a) >= rank(b) ? a : b;
}

// The C++ type stored for each dtype (bool is one byte holding 0 or 1).
template <DType T> struct dtype_traits;
template <> struct dtype_traits<DType::f32> { using type = float; };
template <> struct dtype_traits<DType::f64> { using type = double; };
template <> struct dtype_traits<DType::i32> { using type = std::int32_t; };
template <> struct dtype_traits<DType::i64> { using type = std::int64_t; };
template <> struct dtype_traits<DType::boolean> { using type = bool; };
template <> struct dtype_traits<DType::f16> { using type = float16_t; };
template <> struct dtype_traits<DType::bf16> { using type = bfloat16_t; };

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<std::int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<bool>() { return DType::boolean; }
template <> constexpr DType dtype_of<float16_t>() { return DType::f16; }
template <> constexpr DType dtype_of<bfloat16_t>() { return DType::bf16; }

// Calls f(tag) with tag's ::type the C++ type of `t`; the one dtype switch everything else reuses.
template <typename F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(dtype_traits<DType::f32>{});
    case DType::f64: return f(dtype_traits<DType::f64>{});
    case DType::i32: return f(dtype_traits<DType::i32>{});
    case DType::i64: return f(dtype_traits<DType::i64>{});
    case DType::f16: return f(dtype_traits<DType::f16>{});
    case DType::bf16: return f(dtype_traits<DType::bf16>{});
    case DType::boolean: break;
  }
  return f(dtype_traits<DType::boolean>{});
}

}  // namespace tensorjit
