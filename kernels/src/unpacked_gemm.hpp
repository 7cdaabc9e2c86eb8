// The unpacked path: A read in place, never packed; B read in place when its rows are contiguous,
// else packed once whole. The driver takes it for small and skinny products and whenever A fits
// in L2 (the rule and its measurements: gemm.cpp, docs/gemm.md).
//
//   (B with strided rows: packed once into NR-wide panels)
//   for jr in n step NR                 (column blocks of B and C)
//     B columns of a partial block: copied once into a zero-padded k x NR buffer
//     for ir in m step MR               (row blocks; the last one split into 8, 4, 2, 1 rows;
//                                        the first stores a contiguous copy of B's block for the others)
//       unpacked kernel over all of k, the store stage (in registers), then the epilogue on that tile
//
// No KC blocking: each tile's chains run over all of k at once, so every element is one FMA chain
// in increasing k and C is written once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernel_family.hpp"
#include "packing.hpp"
#include "unpacked_kernel.hpp"

namespace tensorjit::kernels {
namespace {

// One column block [col, col + cols) of NV vectors for rows [0, m), `b` already readable at
// NV*lanes columns per row with row stride b_row_stride. With `b_copy` (room for k x NV*lanes
// values; full-width blocks only), the first row block also stores the B rows it reads there, and
// the other row blocks read that contiguous copy: B's rows a power of two apart (a 2 KiB row
// stride for n = 512 f32) collide in a few L1 and L2 sets, and reading them in place for every
// row block measured 15 % slower in some processes (docs/gemm.md).
template <class T, class V, int MR, int NV>
void unpacked_column_block(const detail::RegionProblem<T>& problem, std::int64_t col, int cols, const T* b,
                           std::int64_t b_row_stride, T* b_copy = nullptr) {
  constexpr int width = UnpackedKernel<T, V, 1, NV>::columns;
  const std::int64_t ldc = problem.c_row_stride;
  const bool full_width = cols == width;
  const detail::TileStage<T> stage = problem.stage.at_column(col);
  alignas(64) T tile[MR * width];
  // Runs a ROWS-row kernel at `row`, through the temporary when the block is narrower than NV vectors.
  auto rows_at = [&](auto rows_constant, std::int64_t row) {
    constexpr int ROWS = decltype(rows_constant)::value;
    const T* a = problem.a + row * problem.a_row_stride;
    T* c = problem.c + row * ldc + col;
    using Kernel = UnpackedKernel<T, V, ROWS, NV>;
    if (full_width && b_copy != nullptr) {
      Kernel::template run<true>(problem.k, a, problem.a_row_stride, problem.a_col_stride, b, b_row_stride, c, ldc,
                                 stage, b_copy);
      b = b_copy;
      b_row_stride = width;
      b_copy = nullptr;
    } else if (full_width) {
      Kernel::run(problem.k, a, problem.a_row_stride, problem.a_col_stride, b, b_row_stride, c, ldc, stage);
    } else {
      Kernel::run(problem.k, a, problem.a_row_stride, problem.a_col_stride, b, b_row_stride, tile, width, {});
      store_finished(c, ldc, tile, width, ROWS, cols, stage);
    }
    if (problem.epilogue != nullptr)
      problem.epilogue(problem.epilogue_context, c, ldc, problem.row0 + row, problem.col0 + col, ROWS, cols,
                       problem.batch);
  };
  if (problem.m < 2 * MR) b_copy = nullptr;  // a single row block reads B once anyway
  std::int64_t row = 0;
  for (; row + MR <= problem.m; row += MR) rows_at(std::integral_constant<int, MR>{}, row);
  if constexpr (MR > 8) {
    if (problem.m - row >= 8) rows_at(std::integral_constant<int, 8>{}, row), row += 8;
  }
  if constexpr (MR > 4) {
    if (problem.m - row >= 4) rows_at(std::integral_constant<int, 4>{}, row), row += 4;
  }
  if (problem.m - row >= 2) rows_at(std::integral_constant<int, 2>{}, row), row += 2;
  if (problem.m - row >= 1) rows_at(std::integral_constant<int, 1>{}, row);
}

// B with strided rows (e.g. column-major, the transposed weight of a dense layer): packed once,
// whole, into zero-padded NR-wide panels (packing.hpp), which the kernel then reads as rows of
// stride NR. A is still read in place.
template <class T, class V, int MR, int NR>
void unpacked_gemm_packed_b(const detail::RegionProblem<T>& problem) {
  constexpr int lanes = lanes_of<V, T>;
  constexpr int NV = NR / lanes;
  const std::int64_t n = problem.n, k = problem.k;
  T* packed_b = problem.workspace;
  if (n <= lanes) {  // skinny: one vector wide, not NR
    pack_block<lanes>(n, k, problem.b, problem.b_col_stride, problem.b_row_stride, packed_b);
    unpacked_column_block<T, V, MR, 1>(problem, 0, static_cast<int>(n), packed_b, lanes);
    return;
  }
  pack_block<NR>(n, k, problem.b, problem.b_col_stride, problem.b_row_stride, packed_b);
  for (std::int64_t col = 0; col < n; col += NR) {
    const int cols = static_cast<int>(std::min<std::int64_t>(NR, n - col));
    unpacked_column_block<T, V, MR, NV>(problem, col, cols, packed_b + col * k, NR);
  }
}

// Region function of the unpacked path. Requires k >= 1 and a workspace of
// unpacked_workspace_elements() values.
template <class T, class V, int MR, int NR>
void unpacked_gemm(const detail::RegionProblem<T>& problem) {
  if (problem.b_col_stride != 1) {
    unpacked_gemm_packed_b<T, V, MR, NR>(problem);
    return;
  }
  constexpr int lanes = lanes_of<V, T>;
  constexpr int NV = NR / lanes;
  const std::int64_t n = problem.n, k = problem.k;
  std::int64_t col = 0;
  for (; col + NR <= n; col += NR)
    unpacked_column_block<T, V, MR, NV>(problem, col, NR, problem.b + col, problem.b_row_stride, problem.workspace);
  if (col == n) return;
  // The last columns: copy them zero padded so the kernel's full-vector loads stay in bounds.
  const int cols = static_cast<int>(n - col);
  const int width = cols <= lanes ? lanes : NR;
  T* padded = problem.workspace;
  for (std::int64_t p = 0; p < k; ++p) {
    std::memcpy(padded + p * width, problem.b + p * problem.b_row_stride + col, cols * sizeof(T));
    std::fill(padded + p * width + cols, padded + (p + 1) * width, T(0));
  }
  if (width == lanes) unpacked_column_block<T, V, MR, 1>(problem, col, cols, padded, width);
  else unpacked_column_block<T, V, MR, NV>(problem, col, cols, padded, width);
}

}  // namespace
}  // namespace tensorjit::kernels
