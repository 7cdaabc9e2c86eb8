// The edge-tile wrapper: lets the hot micro-kernel see only full MR x NR tiles. A partial tile
// (rows < MR or cols < NR, at the bottom or right of C) is computed into an aligned MR x NR
// temporary and only its valid part copied back. The padded lanes of the packed panels are zero,
// so the temporary's extra rows and columns hold harmless values that are never stored.
#pragma once

#include <cstdint>

#include "store_stage.hpp"
#include "tile_prefetch.hpp"

namespace tensorjit::kernels {
namespace {

template <class Kernel, bool Prefetches, class T>
[[gnu::always_inline]] inline void run_tile(std::int64_t k, const T* packed_a, const T* packed_b, T* c,
                                            std::int64_t ldc, int rows, int cols, bool accumulate,
                                            const detail::TileStage<T>& stage, const TilePrefetch& prefetch) {
  constexpr int MR = Kernel::mr;
  constexpr int NR = Kernel::nr;
  if (rows == MR && cols == NR) {
    Kernel::template run<Prefetches>(k, packed_a, packed_b, c, ldc, accumulate, stage, prefetch);
    return;
  }
  alignas(64) T tile[MR * NR] = {};
  if (accumulate) {
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) tile[r * NR + j] = c[r * ldc + j];
  }
  Kernel::template run<Prefetches>(k, packed_a, packed_b, tile, NR, accumulate, {}, prefetch);
  store_finished(c, ldc, tile, NR, rows, cols, stage);
}

}  // namespace
}  // namespace tensorjit::kernels
