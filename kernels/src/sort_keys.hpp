// sort.hpp's key transform: the unsigned key of an element whose unsigned order is the sort's
// order, ascending (descending: its complement). Floats: NaN the largest key, -0.0 as 0.0, then
// the sign bit flipped for positives and every bit for negatives; signed integers: the sign bit
// flipped; bool: 0 or 1. The AVX-512 selection scan (sort_select_avx512.cpp) computes the same keys.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tensorjit/kernels/sort.hpp"

namespace tensorjit::kernels::sort_keys {

template <SortElement E> struct Traits;
template <> struct Traits<SortElement::f32> { using Value = float; using Key = std::uint32_t; };
template <> struct Traits<SortElement::f64> { using Value = double; using Key = std::uint64_t; };
template <> struct Traits<SortElement::i32> { using Value = std::int32_t; using Key = std::uint32_t; };
template <> struct Traits<SortElement::i64> { using Value = std::int64_t; using Key = std::uint64_t; };
template <> struct Traits<SortElement::boolean> { using Value = std::uint8_t; using Key = std::uint32_t; };

template <typename Value, typename Key> Key ascending_key(Value value) {
  if constexpr (std::is_floating_point_v<Value>) {
    constexpr Key sign = Key{1} << (8 * sizeof(Key) - 1);
    if (value != value) return ~Key{0};  // every NaN: the largest key
    Key bits = std::bit_cast<Key>(value);
    if (bits == sign) bits = 0;  // -0.0 is 0.0
    return (bits & sign) ? ~bits : (bits | sign);
  } else if constexpr (std::is_signed_v<Value>) {
    constexpr Key sign = Key{1} << (8 * sizeof(Key) - 1);
    return static_cast<Key>(value) ^ sign;
  } else {
    return value != 0 ? 1 : 0;
  }
}

template <typename Value, typename Key> Key key_of(Value value, bool descending) {
  const Key key = ascending_key<Value, Key>(value);
  return descending ? ~key : key;
}

// The element a key came from, for every key that tells its element's bits: any key but a float's
// zero key (0.0 or -0.0) and NaN key (any NaN). No branch: a loop of it vectorizes.
template <typename Value, typename Key> Value value_from_key(Key key, bool descending) {
  key ^= descending ? ~Key{0} : Key{0};
  constexpr Key sign = Key{1} << (8 * sizeof(Key) - 1);
  if constexpr (std::is_floating_point_v<Value>) {
    return std::bit_cast<Value>((key & sign) ? key ^ sign : ~key);
  } else if constexpr (std::is_signed_v<Value>) {
    return static_cast<Value>(key ^ sign);
  } else {
    return static_cast<Value>(key);
  }
}

}  // namespace tensorjit::kernels::sort_keys
