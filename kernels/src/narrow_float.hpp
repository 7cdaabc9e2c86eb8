// 16-bit operand storage (gemm.hpp's Storage): the exact conversions of binary16 and bfloat16 to
// f32, one value at a time and a vector at a time, and the source types the packing routines
// (packing.hpp) are instantiated with. Internal linkage: compiled per ISA unit with that unit's
// flags (see simd.hpp); with F16C (the AVX2 and AVX-512 units) binary16 converts with vcvtph2ps,
// whose bits are the software conversion's (a NaN keeps its sign and payload and becomes quiet).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "simd.hpp"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace tensorjit::kernels {
namespace {

// The binary16 `bits` as a float (exact): the software form, integer operations only.
constexpr float float_from_f16_bits(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1F;
  std::uint32_t mantissa = bits & 0x3FF;
  if (exponent == 0x1F)
    return std::bit_cast<float>(sign | (mantissa == 0 ? 0x7F800000u : 0x7FC00000u | (mantissa << 13)));
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);
  std::uint32_t normalized = 113;  // a subnormal binary16 is a normal float
  while ((mantissa & 0x400) == 0) {
    mantissa <<= 1;
    --normalized;
  }
  return std::bit_cast<float>(sign | (normalized << 23) | ((mantissa & 0x3FF) << 13));
}

// The bfloat16 `bits` as a float (exact): the top half of its bits.
constexpr float float_from_bf16_bits(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// Where the packing reads an operand's elements from, and how they become T. `Element` is the
// stored type; at(p) is the value at p as T; load<V>(p) the lanes_of<V, T> values from p on.
template <class T>
struct NativeSource {
  using Element = T;
  static constexpr bool converts = false;
  [[gnu::always_inline]] static T at(const Element* p) { return *p; }
  template <class V>
  [[gnu::always_inline]] static V load(const Element* p) {
    return load_vector<V>(p);
  }
};

struct Bf16Source {
  using Element = std::uint16_t;
  static constexpr bool converts = true;
  [[gnu::always_inline]] static float at(const Element* p) { return float_from_bf16_bits(*p); }
  // Widen each 16-bit lane to 32 bits and shift it into the top half (vpmovzxwd + vpslld).
  template <class V>
  [[gnu::always_inline]] static V load(const Element* p) {
    constexpr int lanes = lanes_of<V, float>;
    using Narrow = typename VectorOf<std::uint16_t, lanes * 2>::type;
    using Wide = typename VectorOf<std::uint32_t, lanes * 4>::type;
    const Wide wide = __builtin_convertvector(load_vector<Narrow>(p), Wide) << 16;
    V value;
    std::memcpy(&value, &wide, sizeof(V));
    return value;
  }
};

struct F16Source {
  using Element = std::uint16_t;
  static constexpr bool converts = true;
  [[gnu::always_inline]] static float at(const Element* p) { return float_from_f16_bits(*p); }
  template <class V>
  [[gnu::always_inline]] static V load(const Element* p) {
    constexpr int lanes = lanes_of<V, float>;
    V value;
#if defined(__F16C__)
    if constexpr (lanes % 8 == 0) {
#pragma GCC unroll 8
      for (int chunk = 0; chunk < lanes; chunk += 8) {
        const __m256 converted = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + chunk)));
        std::memcpy(reinterpret_cast<char*>(&value) + chunk * 4, &converted, 32);
      }
      return value;
    } else if constexpr (lanes == 4) {
      const __m128 converted = _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      std::memcpy(&value, &converted, 16);
      return value;
    }
#endif
#pragma GCC unroll 16
    for (int lane = 0; lane < lanes; ++lane) value[lane] = float_from_f16_bits(p[lane]);
    return value;
  }
};

// `count` values of `source` converted into `destination` (a memcpy when nothing converts).
template <class Source, class T>
[[gnu::always_inline]] inline void copy_converted(T* destination, const typename Source::Element* source,
                                                  std::int64_t count) {
  if constexpr (!Source::converts) {
    std::memcpy(destination, source, static_cast<std::size_t>(count) * sizeof(T));
  } else {
    using V = typename VectorOf<float, 32>::type;
    std::int64_t i = 0;
    for (; i + 8 <= count; i += 8) store_vector(destination + i, Source::template load<V>(source + i));
    for (; i < count; ++i) destination[i] = Source::at(source + i);
  }
}

}  // namespace
}  // namespace tensorjit::kernels
