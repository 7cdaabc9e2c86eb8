// An in-register transpose of an L x L block of T, written once over GCC vectors with
// __builtin_shuffle (each ISA unit lowers it to its own permutes: vpermt2ps with AVX-512,
// unpack/permute pairs with AVX2). Packing uses it when the k direction of an operand is the
// contiguous one (row-major A, column-major B), which would otherwise be a scalar strided copy.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "simd.hpp"

namespace tensorjit::kernels {
namespace {

template <class V, class T>
using LaneIndexVector = typename VectorOf<std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>, sizeof(V)>::type;

// interleave(a, b, half) = a[h], b[h], a[h+1], b[h+1], ... starting at h = 0 (low) or L/2 (high).
template <class V, class T, bool High>
[[gnu::always_inline]] inline V interleave(V a, V b) {
  constexpr int lanes = lanes_of<V, T>;
  using Index = LaneIndexVector<V, T>;
  Index mask;
#pragma GCC unroll 64
  for (int i = 0; i < lanes / 2; ++i) {
    mask[2 * i] = i + (High ? lanes / 2 : 0);
    mask[2 * i + 1] = i + (High ? lanes / 2 : 0) + lanes;
  }
  return __builtin_shuffle(a, b, mask);
}

// rows[i] holds row i of an L x L block; afterwards rows[i] holds column i. log2(L) rounds of
// pairing row i with row i + L/2 (see docs/gemm.md).
template <class V, class T>
[[gnu::always_inline]] inline void transpose_block(V (&rows)[lanes_of<V, T>]) {
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
