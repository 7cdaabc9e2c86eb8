// Vector types and the three operations a micro-kernel needs: load/store, broadcast and an exact
// fused multiply-add. Compiled separately in every ISA translation unit with that unit's flags.
//
// Everything here has internal linkage on purpose: the same template compiled with -mavx512f in
// one unit and with -mavx2 in another must not be merged by the linker (an ODR merge could run an
// AVX-512 copy on an AVX2 CPU).
#pragma once

#include <cmath>
#include <cstring>

#if defined(__AVX2__) || defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tensorjit::kernels {
namespace {

// A GCC vector of `Bytes` bytes of T. Wider than the CPU's registers is fine: GCC splits it.
template <class T, int Bytes>
struct VectorOf {
  typedef T type __attribute__((vector_size(Bytes)));
};

template <class V, class T>
inline constexpr int lanes_of = static_cast<int>(sizeof(V) / sizeof(T));

template <class V>
[[gnu::always_inline]] inline V load_vector(const void* source) {
  V value;
  std::memcpy(&value, source, sizeof(V));
  return value;
}

template <class V>
[[gnu::always_inline]] inline void store_vector(void* destination, V value) {
  std::memcpy(destination, &value, sizeof(V));
}

// What this unit is compiled for (each ISA unit has its own flags).
#if defined(__AVX512F__)
inline constexpr bool unit_has_avx512 = true;
#else
inline constexpr bool unit_has_avx512 = false;
#endif
#if defined(__FMA__) && defined(__AVX2__)
inline constexpr bool unit_has_fma = true;
#else
inline constexpr bool unit_has_fma = false;
#endif

// Every lane = x, exactly (no arithmetic that could change the sign of a zero).
template <class V, class T>
[[gnu::always_inline]] inline V broadcast(T x) {
  [[maybe_unused]] constexpr int bytes = sizeof(V);
  [[maybe_unused]] constexpr bool is_float = sizeof(T) == 4;
#if defined(__AVX512F__)
  if constexpr (bytes == 64) return is_float ? (V)_mm512_set1_ps(x) : (V)_mm512_set1_pd(x);
#endif
#if defined(__AVX2__)
  if constexpr (bytes == 32) return is_float ? (V)_mm256_set1_ps(x) : (V)_mm256_set1_pd(x);
  if constexpr (bytes == 16) return is_float ? (V)_mm_set1_ps(x) : (V)_mm_set1_pd(x);
#endif
  if constexpr (!(unit_has_avx512 && bytes == 64) && !(unit_has_fma && bytes <= 32)) {
    V value;
#pragma GCC unroll 64
    for (int lane = 0; lane < lanes_of<V, T>; ++lane) value[lane] = x;
    return value;
  }
}

// a*b + c with one rounding, lane by lane. Hardware FMA where this unit is compiled for it; a
// vector wider than the unit's registers is fused half by half; the portable unit's per-lane
// std::fma gives the same bits (IEEE fusedMultiplyAdd), only slower.
template <class T, class V>
[[gnu::always_inline]] inline V fused_multiply_add(V a, V b, V c) {
  [[maybe_unused]] constexpr int bytes = sizeof(V);
  [[maybe_unused]] constexpr bool is_float = sizeof(T) == 4;
#if defined(__AVX512F__)
  if constexpr (bytes == 64) {
    if constexpr (is_float) return (V)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
    else return (V)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
  }
#endif
#if defined(__FMA__) && defined(__AVX2__)
  if constexpr (bytes == 32) {
    if constexpr (is_float) return (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
    else return (V)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
  }
  if constexpr (bytes == 16) {
    if constexpr (is_float) return (V)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
    else return (V)_mm_fmadd_pd((__m128d)a, (__m128d)b, (__m128d)c);
  }
#endif
  if constexpr (unit_has_fma && !unit_has_avx512 && bytes > 32) {
    using Half = typename VectorOf<T, bytes / 2>::type;
    Half halves[3][2];
    std::memcpy(halves[0], &a, bytes);
    std::memcpy(halves[1], &b, bytes);
    std::memcpy(halves[2], &c, bytes);
    const Half low = fused_multiply_add<T, Half>(halves[0][0], halves[1][0], halves[2][0]);
    const Half high = fused_multiply_add<T, Half>(halves[0][1], halves[1][1], halves[2][1]);
    V result;
    std::memcpy(&result, &low, bytes / 2);
    std::memcpy(reinterpret_cast<char*>(&result) + bytes / 2, &high, bytes / 2);
    return result;
  } else if constexpr (!unit_has_fma) {
    V result;
#pragma GCC unroll 64
    for (int lane = 0; lane < lanes_of<V, T>; ++lane) result[lane] = std::fma(a[lane], b[lane], c[lane]);
    return result;
  }
}

}  // namespace
}  // namespace tensorjit::kernels
