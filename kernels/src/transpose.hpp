// An in-register transpose of an L x L block of T, written once over GCC vectors with
// __builtin_shufflevector (GCC 12 and clang; each ISA unit lowers it to its own permutes: vpermt2ps with AVX-512,
// unpack/permute pairs with AVX2). Packing uses it when the k direction of an operand is the
// contiguous one (row-major A, column-major B), which would otherwise be a scalar strided copy.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "simd.hpp"

namespace tensorjit::kernels {
namespace {

// interleave(a, b, half) = a[h], b[h], a[h+1], b[h+1], ... starting at h = 0 (low) or L/2 (high).
template <class V, class T, bool High, int... Lane>
[[gnu::always_inline]] inline V interleave_lanes(V a, V b, std::integer_sequence<int, Lane...>) {
  constexpr int lanes = lanes_of<V, T>;
  constexpr int half = High ? lanes / 2 : 0;
  return __builtin_shufflevector(a, b, (Lane % 2 == 0 ? half + Lane / 2 : half + Lane / 2 + lanes)...);
}

template <class V, class T, bool High>
[[gnu::always_inline]] inline V interleave(V a, V b) {
  return interleave_lanes<V, T, High>(a, b, std::make_integer_sequence<int, lanes_of<V, T>>());
}

// rows[i] holds row i of an L x L block; afterwards rows[i] holds column i. log2(L) rounds of
// pairing row i with row i + L/2 (see docs/gemm.md).
// (The bound is parenthesised for clang, which otherwise misreads the declarator.)
template <class V, class T>
[[gnu::always_inline]] inline void transpose_block(V (&rows)[(lanes_of<V, T>)]) {
  constexpr int lanes = lanes_of<V, T>;
  for (int round = 1; round < lanes; round *= 2) {
    V next[lanes];
#pragma GCC unroll 64
    for (int i = 0; i < lanes / 2; ++i) {
      next[2 * i] = interleave<V, T, false>(rows[i], rows[i + lanes / 2]);
      next[2 * i + 1] = interleave<V, T, true>(rows[i], rows[i + lanes / 2]);
    }
#pragma GCC unroll 64
    for (int i = 0; i < lanes; ++i) rows[i] = next[i];
  }
}

}  // namespace
}  // namespace tensorjit::kernels
