// The micro-kernel: C_tile (MR x NR) = [C_tile +] packed_A_panel · packed_B_panel over k steps,
// and, when asked, the prefetch of the epilogue's reads, which only pays spread over its k loop.
// Packing, blocking, edge tiles, threads and the epilogue belong to the framework
// (five_loops.hpp); this is the only code whose speed is the speed of the GEMM.
//
// Packed layout (k steps run down the page; every panel is zero padded to full MR or NR):
//
//   packed_A panel (MR rows of A, "MR-high")    packed_B panel (NR columns of B, "NR-wide")
//     p = 0 : a[0,0] a[1,0] ... a[MR-1,0]          p = 0 : b[0,0] b[0,1] ... b[0,NR-1]
//     p = 1 : a[0,1] a[1,1] ... a[MR-1,1]          p = 1 : b[1,0] b[1,1] ... b[1,NR-1]
//     ...                                          ...
//     p = k-1                                      p = k-1
//   address of a[r,p] = packed_a + p*MR + r        address of b[p,j] = packed_b + p*NR + j
//
// Per k step the kernel loads NV = NR/lanes vectors of B, broadcasts each of the MR values of A
// and issues MR*NV independent FMAs into MR*NV accumulator registers.
//
// Contract
//  - k >= 1; packed_a holds k*MR values and packed_b k*NR values (no alignment required);
//  - c points at a full MR x NR tile, row stride ldc, column stride 1;
//  - accumulate == false: acc = +0, accumulate == true: acc = the tile's current values (the
//    partial result of the previous KC blocks);
//  - then acc[r][j] = fma(a[r,p], b[p,j], acc[r][j]) for p = 0, 1, ..., k-1 in that order, the
//    store stage (store_stage.hpp; inactive except after the last KC block) is applied, and the
//    tile is stored. This is exactly the reference chain, so blocking k in KC pieces that each
//    continue from the stored partial changes no bit;
//  - with Prefetches (the last KC block of a tile whose epilogue reads other operands), the tile's
//    lines of those are prefetched during the k loop (tile_prefetch.hpp); every step prefetches
//    the row of packed_b b_prefetch_rows further on (b_prefetch.hpp); no value changes.
#pragma once

#include <cstdint>

#include "simd.hpp"
#include "store_stage.hpp"
#include "b_prefetch.hpp"
#include "tile_prefetch.hpp"

namespace tensorjit::kernels {
namespace {

template <class T, class V, int MR, int NV>
struct MicroKernel {
  static constexpr int lanes = lanes_of<V, T>;
  static constexpr int mr = MR;
  static constexpr int nr = NV * lanes;

  // Prefetches: whether to prefetch the tile's lines of the epilogue's reads (`prefetch`, unused
  // otherwise) during the k loop.
  template <bool Prefetches>
  [[gnu::noinline]] static void run(std::int64_t k, const T* __restrict packed_a, const T* __restrict packed_b,
                                    T* __restrict c, std::int64_t ldc, bool accumulate,
                                    detail::TileStage<T> stage, const TilePrefetch& prefetch) {
    V acc[MR][NV];
    if (accumulate) {
#pragma GCC unroll 32
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = load_vector<V>(c + r * ldc + v * lanes);
    } else {
#pragma GCC unroll 32
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = broadcast<V, T>(T(0));
    }
    if constexpr (Prefetches) prefetch.before_loop(k);
    for (std::int64_t p = 0; p < k; ++p) {
      if constexpr (Prefetches) prefetch.at_step(p);
      prefetch_b_row<V, NV>(packed_b + b_prefetch_rows * nr);
      V b[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) b[v] = load_vector<V>(packed_b + v * lanes);
#pragma GCC unroll 32
      for (int r = 0; r < MR; ++r) {
        const V a = broadcast<V, T>(packed_a[r]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = fused_multiply_add<T, V>(a, b[v], acc[r][v]);
      }
      packed_a += MR;
      packed_b += nr;
    }
    if (stage.active()) finish_tile<T, V, MR, NV>(acc, stage);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) store_vector(c + r * ldc + v * lanes, acc[r][v]);
  }
};

}  // namespace
}  // namespace tensorjit::kernels
