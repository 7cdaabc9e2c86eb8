// The store stage (gemm.hpp's StoreStage) applied to values about to be stored: + the column's
// bias, then the activation. The vector form runs on a micro-kernel's accumulators, the scalar
// form on edge tiles and zeroed regions; both are the same IEEE operations per element, so a
// value gets the same bits whichever path stored it (and the same as reference_gemm).
//
// Internal linkage: compiled per ISA unit with that unit's flags (see simd.hpp).
#pragma once

#include <cstdint>

#include "kernel_family.hpp"
#include "simd.hpp"

namespace tensorjit::kernels {
namespace {

// relu as the contract states it: x > 0 or NaN ? x : +0. "x <= 0" is false for NaN.
template <class V>
[[gnu::always_inline]] inline V relu_vector(V x) {
  const V zero = {};
  return x <= zero ? zero : x;
}

template <class T>
[[gnu::always_inline]] inline T finish_scalar(T x, const detail::TileStage<T>& stage, std::int64_t column) {
  if (stage.bias != nullptr) x = x + stage.bias[column];
  if (stage.relu) x = x <= T(0) ? T(0) : x;
  return x;
}

// The stage over ROWS x NV accumulator vectors of one tile, in place.
template <class T, class V, int ROWS, int NV>
[[gnu::always_inline]] inline void finish_tile(V (&acc)[ROWS][NV], const detail::TileStage<T>& stage) {
  constexpr int lanes = lanes_of<V, T>;
  if (stage.bias != nullptr) {
    V bias[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bias[v] = load_vector<V>(stage.bias + v * lanes);
#pragma GCC unroll 32
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + bias[v];
  }
  if (stage.relu) {
#pragma GCC unroll 32
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] = relu_vector(acc[r][v]);
  }
}

// Copies a rows x cols block from a temporary tile (row stride tile_stride) into C, applying the stage.
template <class T>
inline void store_finished(T* c, std::int64_t ldc, const T* tile, std::int64_t tile_stride, std::int64_t rows,
                           std::int64_t cols, const detail::TileStage<T>& stage) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) c[r * ldc + j] = finish_scalar(tile[r * tile_stride + j], stage, j);
}

}  // namespace
}  // namespace tensorjit::kernels
