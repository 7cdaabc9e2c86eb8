// Element types of tensors. Part of the public API (re-exported by <tensorjit/tensorjit.hpp>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tensorjit {

enum class DType : std::uint8_t { f32, f64, i32, i64, boolean };

inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType boolean = DType::boolean;

inline constexpr int kDTypeCount = 5;

constexpr std::size_t itemsize(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
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
  }
  return "?";
}

constexpr bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }
constexpr bool is_integer(DType t) { return t == DType::i32 || t == DType::i64; }
constexpr bool is_bool(DType t) { return t == DType::boolean; }

// PyTorch's promotion of two tensor dtypes: bool < integers < floating, the wider within a kind.
constexpr DType promote_types(DType a, DType b) {
  auto rank = [](DType t) {
    switch (t) {
      case DType::boolean: return 0;
      case DType::i32: return 1;
      case DType::i64: return 2;
      case DType::f32: return 3;
      case DType::f64: return 4;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

// The C++ type stored for each dtype (bool is one byte holding 0 or 1).
template <DType T> struct dtype_traits;
template <> struct dtype_traits<DType::f32> { using type = float; };
template <> struct dtype_traits<DType::f64> { using type = double; };
template <> struct dtype_traits<DType::i32> { using type = std::int32_t; };
template <> struct dtype_traits<DType::i64> { using type = std::int64_t; };
template <> struct dtype_traits<DType::boolean> { using type = bool; };

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<std::int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<bool>() { return DType::boolean; }

// Calls f(tag) with tag's ::type the C++ type of `t`; the one dtype switch everything else reuses.
template <typename F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(dtype_traits<DType::f32>{});
    case DType::f64: return f(dtype_traits<DType::f64>{});
    case DType::i32: return f(dtype_traits<DType::i32>{});
    case DType::i64: return f(dtype_traits<DType::i64>{});
    case DType::boolean: break;
  }
  return f(dtype_traits<DType::boolean>{});
}

}  // namespace tensorjit
