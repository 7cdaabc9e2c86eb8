// The GotoBLAS/BLIS loop nest around the micro-kernel, for one region of C computed by one task:
//
//   for jc in n step NC                       (5th loop: B block KC x NC lives in L3)
//     for pc in k step KC                     (4th loop: the k blocks, in increasing order)
//       pack B[pc:pc+KC, jc:jc+NC] into NR-wide panels (unless B was packed ahead of time)
//       for ic in m step MC                   (3rd loop: A block MC x KC, in L2 or streamed)
//         pack A[ic:ic+MC, pc:pc+KC] into MR-high panels
//         for jr in NC step NR                (2nd loop: one B micro-panel, reused by the whole 1st loop)
//           for ir in MC step MR              (1st loop: the A micro-panels of the block)
//             micro-kernel on the MR x NR tile (edge tiles through run_tile's temporary); in the
//             last KC block it also prefetches the tile's lines of the epilogue's reads
//             after the last KC block: the store stage (in registers)
//           after the last KC block, every packed_epilogue_panels() panels: the epilogue on those
//           mc rows (from the epilogue's scratch instead of C when the hook consumes C and
//           k <= KC: the tiles are then stored there)
//
// k is never split: the first KC block starts every chain from +0, later blocks continue it from
// the value the previous block stored, so each element is one FMA chain in increasing k.
//
// A 16-bit operand (f16 or bf16 storage) is converted to f32 by the packing as it copies it into the
// panels: the micro-kernels see f32 panels either way.
//
// Internal linkage: instantiated per ISA unit with that unit's flags (see simd.hpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "edge_tile.hpp"
#include "kernel_family.hpp"
#include "packing.hpp"
#include "store_stage.hpp"

namespace tensorjit::kernels {
namespace {

template <class T>
void zero_region_and_finish(const detail::RegionProblem<T>& problem) {
  for (std::int64_t i = 0; i < problem.m; ++i)
    for (std::int64_t j = 0; j < problem.n; ++j)
      problem.c[i * problem.c_row_stride + j] = finish_scalar(T(0), problem.stage, j);
  if (problem.epilogue != nullptr)
    problem.epilogue(problem.epilogue_context, problem.c, problem.c_row_stride, problem.row0, problem.col0,
                     problem.m, problem.n, problem.batch);
}

// Brings the next tile of C towards L1 while the current one computes: the micro-kernel loads C
// before its first FMA (a later KC block continues the stored chain), so a miss there would stall.
template <int MR, int NR, class T>
[[gnu::always_inline]] inline void prefetch_next_tile(const detail::RegionProblem<T>& problem, std::int64_t row,
                                                      std::int64_t col, std::int64_t row_end, std::int64_t col_end) {
  if (row >= row_end || col >= col_end) return;
  const T* c_tile = problem.c + row * problem.c_row_stride + col;
  const std::int64_t rows = std::min<std::int64_t>(row_end - row, MR);
  const std::int64_t cols = std::min<std::int64_t>(col_end - col, NR);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; j += 64 / static_cast<std::int64_t>(sizeof(T)))
      __builtin_prefetch(c_tile + r * problem.c_row_stride + j, 1, 3);
}

// The 2nd and 1st loops over one packed A block and one packed B block.
template <class T, class Kernel>
void macro_kernel(const detail::RegionProblem<T>& problem, std::int64_t ic, std::int64_t jc, std::int64_t mc,
                  std::int64_t nc, std::int64_t kc, const T* packed_a, const T* packed_b,
                  std::int64_t b_panel_stride, bool accumulate, bool last_block) {
  constexpr int MR = Kernel::mr;
  constexpr int NR = Kernel::nr;
  const std::int64_t ldc = problem.c_row_stride;
  const detail::TileStage<T> no_stage{};
  const bool finishing = last_block && problem.epilogue != nullptr;
  const std::int64_t group = finishing ? detail::packed_epilogue_panels<T>(problem.blocking) * NR : nc;
  // A block that starts the chains (k <= KC) can store its tiles to the scratch the hook consumes.
  T* const scratch = finishing && !accumulate ? problem.epilogue_scratch : nullptr;
  for (std::int64_t jg = 0; jg < nc; jg += group) {
    const std::int64_t group_cols = std::min(group, nc - jg);
    T* const region = scratch != nullptr ? scratch : problem.c + ic * ldc + jc + jg;
    const std::int64_t region_ldc = scratch != nullptr ? group : ldc;
    for (std::int64_t jr = jg; jr < jg + group_cols; jr += NR) {
      const int cols = static_cast<int>(std::min<std::int64_t>(NR, nc - jr));
      const T* b_panel = packed_b + jr * b_panel_stride;
      for (std::int64_t ir = 0; ir < mc; ir += MR) {
        const int rows = static_cast<int>(std::min<std::int64_t>(MR, mc - ir));
        const std::int64_t row = ic + ir;
        const std::int64_t col = jc + jr;
        const bool next_in_column = ir + MR < mc;  // else the next tile starts the next column of tiles
        if (scratch == nullptr)
          prefetch_next_tile<MR, NR>(problem, next_in_column ? row + MR : ic, next_in_column ? col : col + NR,
                                     ic + mc, jc + nc);
        T* const tile = region + ir * region_ldc + (jr - jg);
        const detail::TileStage<T> stage = last_block ? problem.stage.at_column(col) : no_stage;
        const TilePrefetch prefetch(problem.epilogue_reads, row, col, rows, cols);
        if (finishing && problem.epilogue_reads.count > 0)
          run_tile<Kernel, true>(kc, packed_a + ir * kc, b_panel, tile, region_ldc, rows, cols, accumulate, stage,
                                 prefetch);
        else
          run_tile<Kernel, false>(kc, packed_a + ir * kc, b_panel, tile, region_ldc, rows, cols, accumulate, stage,
                                  prefetch);
      }
    }
    if (finishing)
      problem.epilogue(problem.epilogue_context, region, region_ldc, problem.row0 + ic, problem.col0 + jc + jg, mc,
                       group_cols, problem.batch);
  }
}

template <class T, class Kernel>
void gemm_five_loops(const detail::RegionProblem<T>& problem) {
  constexpr int MR = Kernel::mr;
  constexpr int NR = Kernel::nr;
  const std::int64_t m = problem.m, n = problem.n, k = problem.k;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    zero_region_and_finish(problem);
    return;
  }
  const detail::Blocking& blocking = problem.blocking;
  T* packed_a = problem.workspace;
  T* packed_b = problem.workspace + detail::packed_a_elements<T>(blocking, m, k);
  // 16-bit operands are converted as they are packed.
  const PackSource<T> a_source{problem.a, problem.a_narrow, problem.a_storage};
  const PackSource<T> b_source{problem.b, problem.b_narrow, problem.b_storage};

  for (std::int64_t jc = 0; jc < n; jc += blocking.nc) {
    const std::int64_t nc = std::min(blocking.nc, n - jc);
    for (std::int64_t pc = 0; pc < k; pc += blocking.kc) {
      const std::int64_t kc = std::min(blocking.kc, k - pc);
      const bool accumulate = pc > 0;
      const bool last_block = pc + kc == k;
      // B packed ahead of time: its panels hold all k steps, so this block's steps of panel j start
      // at j's panel + pc * NR, and panels are k * NR apart.
      const T* b_block = packed_b;
      std::int64_t b_panel_stride = kc;
      if (problem.b_packed != nullptr) {
        b_block = problem.b_packed + jc * k + pc * NR;
        b_panel_stride = k;
      } else {
        pack_block<NR>(nc, kc, b_source.at(pc * problem.b_row_stride + jc * problem.b_col_stride),
                       problem.b_col_stride, problem.b_row_stride, packed_b);
      }
      for (std::int64_t ic = 0; ic < m; ic += blocking.mc) {
        const std::int64_t mc = std::min(blocking.mc, m - ic);
        pack_block<MR>(mc, kc, a_source.at(ic * problem.a_row_stride + pc * problem.a_col_stride),
                       problem.a_row_stride, problem.a_col_stride, packed_a);
        macro_kernel<T, Kernel>(problem, ic, jc, mc, nc, kc, packed_a, b_block, b_panel_stride, accumulate,
                                last_block);
      }
    }
  }
}

}  // namespace
}  // namespace tensorjit::kernels
