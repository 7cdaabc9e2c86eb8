// The kernel of the unpacked path: like the micro-kernel, but it reads A and B in place instead of
// from packed panels, for the products where packing costs more than it saves (docs/gemm.md).
//
// Contract
//  - ROWS x (NV * lanes) tile of C, from +0: c[r][j] = fma chain over p = 0 .. k-1 in increasing
//    order of a[r, p] * b[p, j] — the same chain as the reference, so the bits are the same;
//  - A is read at a[r * a_row_stride + p * a_col_stride] (any strides);
//  - B's rows are contiguous: b[p * b_row_stride + j] for j < NV * lanes, all readable;
//  - c is a full tile, row stride ldc, column stride 1; the store stage (store_stage.hpp) is
//    applied to the chains before they are stored;
//  - with Prefetches, the tile's lines of the operands its epilogue reads are prefetched during
//    the k loop (tile_prefetch.hpp); with b_ahead != 0 (elements), each step prefetches B's row
//    b_ahead further on (b_prefetch.hpp); no value changes.
#pragma once

#include <cstdint>

#include "b_prefetch.hpp"
#include "simd.hpp"
#include "store_stage.hpp"
#include "tile_prefetch.hpp"

namespace tensorjit::kernels {
namespace {

template <class T, class V, int ROWS, int NV>
struct UnpackedKernel {
  static constexpr int lanes = lanes_of<V, T>;
  static constexpr int columns = NV * lanes;

  // Prefetches: whether to prefetch the tile's lines of the epilogue's reads (`prefetch`, unused
  // otherwise) during the k loop.
  template <bool CopiesB, bool Prefetches>
  [[gnu::noinline]] static void run(std::int64_t k, const T* a, std::int64_t a_row_stride, std::int64_t a_col_stride,
                                    const T* b, std::int64_t b_row_stride, T* c, std::int64_t ldc,
                                    detail::TileStage<T> stage, const TilePrefetch& prefetch,
                                    std::int64_t b_ahead, T* __restrict b_copy = nullptr) {
    V acc[ROWS][NV];
#pragma GCC unroll 32
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] = broadcast<V, T>(T(0));
    // One pointer per three rows, rows addressed as pointer + {0, 1, 2} * row stride: x86 forms
    // these as base + index * scale, so 14 rows need 5 pointers instead of 14 (no spills).
    constexpr int groups = (ROWS + 2) / 3;
    const T* group_row[groups];
#pragma GCC unroll 16
    for (int g = 0; g < groups; ++g) group_row[g] = a + 3 * g * a_row_stride;
    if constexpr (Prefetches) prefetch.before_loop(k);
    for (std::int64_t p = 0; p < k; ++p) {
      if constexpr (Prefetches) prefetch.at_step(p);
      if (b_ahead != 0) prefetch_b_row<V, NV>(b + b_ahead);
      V b_row[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) b_row[v] = load_vector<V>(b + v * lanes);
      if constexpr (CopiesB) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) store_vector(b_copy + v * lanes, b_row[v]);
        b_copy += columns;
      }
#pragma GCC unroll 32
      for (int r = 0; r < ROWS; ++r) {
        const V a_value = broadcast<V, T>(group_row[r / 3][(r % 3) * a_row_stride]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = fused_multiply_add<T, V>(a_value, b_row[v], acc[r][v]);
      }
#pragma GCC unroll 16
      for (int g = 0; g < groups; ++g) group_row[g] += a_col_stride;
      b += b_row_stride;
    }
    if (stage.active()) finish_tile<T, V, ROWS, NV>(acc, stage);
#pragma GCC unroll 32
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) store_vector(c + r * ldc + v * lanes, acc[r][v]);
  }
};

}  // namespace
}  // namespace tensorjit::kernels
