// The unpacked path: A read in place, never packed; B read in place when its rows are contiguous,
// else packed once whole. The driver takes it for small and skinny products and whenever A fits
// in L2 (the rule and its measurements: gemm.cpp, docs/gemm.md).
//
//   (B with strided rows: packed once into NR-wide panels; B packed ahead of time: its panels)
//   for jg in n step G*NR               (groups of G column blocks: G = 1, or with an epilogue hook
//                                        from k, unpacked_group_blocks)
//     B columns of a partial block: copied once into a zero-padded k x NR buffer
//     for ir in m step MR               (row blocks; the rows past them as one block, but for 2 or 3
//                                        of them after a full block: 12 + 4 and 13 + 4 rows;
//                                        the first stores a contiguous copy of B's blocks for the others)
//       for jr in the group step NR     (the unpacked kernel over all of k, the store stage in registers,
//                                        prefetching the tile's lines of the epilogue's reads)
//       the epilogue over the row of G tiles (stored in the epilogue's scratch instead of C when the
//                                             hook consumes C)
//
// A stored in 16 bits is converted into the workspace first (row-major f32) and read from there; B
// stored in 16 bits is packed whole, converted, like B with strided rows.
//
// No KC blocking: each tile's chains run over all of k at once, so every element is one FMA chain
// in increasing k and C is written once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernel_family.hpp"
#include "packing.hpp"
#include "unpacked_kernel.hpp"

namespace tensorjit::kernels {
namespace {

// The largest span of B's rows (k * row stride, bytes) read in place by every row block without a
// copy: two thirds of the 48 KiB L1 of Zen 4/5, leaving room for the rows of A and the tile of C.
constexpr std::int64_t unpacked_in_place_span = std::int64_t{32} << 10;

// Whether the rows of B one column block reads (k rows `row_stride` apart) fit in
// unpacked_in_place_span, and so stay in L1 from one row block to the next.
template <class T>
bool unpacked_b_rows_fit_in_l1(std::int64_t k, std::int64_t row_stride) {
  return k * (row_stride < 0 ? -row_stride : row_stride) * std::int64_t{sizeof(T)} <= unpacked_in_place_span;
}

// The fewest rows a kernel computes for it to prefetch B (b_prefetch.hpp), when B's rows do not
// fit in L1 (when they do, the prefetches only take load slots). A kernel of 1, 2 or 4 rows takes
// few cycles a step, the prefetches were as many loads as its multiply-adds' reads of B, and they
// lost 0-30 % (1 x 4096 x 4096, 2 and 4 x 384 x 1536 with row-major B), where 8 rows and more gained
// 1.05-2x (8 and 16 x 1536 x 384, 128 x 384 x 1536, MiniLM at 16 tokens 1.12x; docs/gemm.md).
constexpr int unpacked_b_prefetch_min_rows = 8;

// Column blocks of NV vectors side by side, for rows [0, m): `blocks` blocks from column `col`, all
// full width but the last, which has `last_cols` columns (a narrower one is computed through a
// temporary). Block g of B is readable at b + g * b_block_stride, NV*lanes columns per row, rows
// b_row_stride apart. For each row block the kernels run across the blocks, then the epilogue
// runs once over that row of tiles: fewer calls, and a large operand of the epilogue (a residual)
// is read a row of blocks at a time instead of a column of tiles at a time. When the hook consumes
// C, the row of tiles goes to the epilogue scratch (row stride blocks * width), which stays in L1.
//
// With `b_copy` (room for blocks * k * NV*lanes values; full-width blocks only), the first row
// block also stores the B rows it reads there, and the other row blocks read that contiguous
// copy: B's rows a power of two apart (a 2 KiB row stride for n = 512 f32) collide in a few L1 and
// L2 sets, and reading them in place for every row block measured 15 % slower in some processes
// (docs/gemm.md).
template <class T, class V, int MR, int NV>
void unpacked_column_blocks(const detail::RegionProblem<T>& problem, std::int64_t col, std::int64_t blocks,
                            int last_cols, const T* b, std::int64_t b_row_stride, std::int64_t b_block_stride,
                            T* b_copy = nullptr) {
  constexpr int width = UnpackedKernel<T, V, 1, NV>::columns;
  T* const scratch = problem.epilogue_scratch;
  const std::int64_t ldc = scratch != nullptr ? blocks * width : problem.c_row_stride;
  const std::int64_t k = problem.k;
  const std::int64_t region_cols = (blocks - 1) * width + last_cols;
  alignas(64) T tile[MR * width];
  // The distance of the B prefetches for kernels of at least unpacked_b_prefetch_min_rows rows.
  auto b_prefetch_distance = [k](std::int64_t row_stride) -> std::int64_t {
    return unpacked_b_rows_fit_in_l1<T>(k, row_stride) ? 0 : b_prefetch_rows * row_stride;
  };
  std::int64_t b_ahead = b_prefetch_distance(b_row_stride);
  // Runs ROWS-row kernels at `row` across the blocks, then the epilogue over them.
  auto rows_at = [&](auto rows_constant, std::int64_t row) {
    constexpr int ROWS = decltype(rows_constant)::value;
    using Kernel = UnpackedKernel<T, V, ROWS, NV>;
    const T* a = problem.a + row * problem.a_row_stride;
    const std::int64_t b_ahead_rows = ROWS >= unpacked_b_prefetch_min_rows ? b_ahead : 0;
    T* c_row = scratch != nullptr ? scratch : problem.c + row * ldc + col;
    // The kernels of the blocks, instantiated with or without the epilogue's prefetches so that
    // a product without them runs exactly the plain kernel.
    auto blocks_of_row = [&](auto prefetches) {
      constexpr bool Prefetches = decltype(prefetches)::value;
      for (std::int64_t g = 0; g < blocks; ++g) {
        T* c = c_row + g * width;
        const T* b_block = b + g * b_block_stride;
        const detail::TileStage<T> stage = problem.stage.at_column(col + g * width);
        const int cols = g + 1 < blocks ? width : last_cols;
        const TilePrefetch prefetch(problem.epilogue_reads, row, col + g * width, ROWS, cols);
        if (cols == width && b_copy != nullptr) {
          Kernel::template run<true, Prefetches>(k, a, problem.a_row_stride, problem.a_col_stride, b_block,
                                                 b_row_stride, c, ldc, stage, prefetch, b_ahead_rows, b_copy + g * k * width);
        } else if (cols == width) {
          Kernel::template run<false, Prefetches>(k, a, problem.a_row_stride, problem.a_col_stride, b_block,
                                                  b_row_stride, c, ldc, stage, prefetch, b_ahead_rows);
        } else {
          Kernel::template run<false, Prefetches>(k, a, problem.a_row_stride, problem.a_col_stride, b_block,
                                                  b_row_stride, tile, width, {}, prefetch, b_ahead_rows);
          store_finished(c, ldc, tile, width, ROWS, cols, stage);
        }
      }
    };
    if (problem.epilogue_reads.count > 0) blocks_of_row(std::true_type{});
    else blocks_of_row(std::false_type{});
    if (b_copy != nullptr) {  // the other row blocks read the copy
      b = b_copy;
      b_row_stride = width;
      b_block_stride = k * width;
      b_ahead = b_prefetch_distance(b_row_stride);
      b_copy = nullptr;
    }
    if (problem.epilogue != nullptr)
      problem.epilogue(problem.epilogue_context, c_row, ldc, problem.row0 + row, problem.col0 + col, ROWS,
                       region_cols, problem.batch);
  };
  // No copy when a single row block reads B once anyway, or when the rows of B one block reads
  // span at most 32 KiB: an address range smaller than L1 never holds more lines of one set than L1
  // has ways, so those rows cannot collide, and the copy's extra stores would only slow the first
  // row block down (64^3).
  const int block_rows = detail::unpacked_block_rows(MR, problem.a_row_stride * std::int64_t{sizeof(T)});
  if (problem.m < 2 * block_rows || unpacked_b_rows_fit_in_l1<T>(k, b_row_stride)) b_copy = nullptr;
  // Runs the kernel of `count` rows (1 to MR, one instantiation each) at `at`.
  auto rows_block = [&](int count, std::int64_t at) {
    [&]<int... R>(std::integer_sequence<int, R...>) {
      ((count == R + 1 ? rows_at(std::integral_constant<int, R + 1>{}, at) : void()), ...);
    }(std::make_integer_sequence<int, MR>{});
  };
  // The rows past the full MR-row blocks run as one block of their own: each further block reads
  // B again (from L2, where the first streamed it from memory), and 11 rows as 8 + 2 + 1 took
  // 1.6-2x the time of one 11-row block. But a kernel of 1 or 2 rows runs 1 or 2 * NV chains,
  // half or less of what the FMA latency asks for (4 rows' 4 * NV are enough), and one 16-token
  // sentence ran its products as 14 + 2 rows, the 2-row pass a quarter of their time: a tail of 2
  // or 3 rows after a full block takes 2 or 1 rows of it (16 rows as 12 + 4, 17 as 13 + 4). A
  // 1-row tail does not: 15 rows as 11 + 4 measured slower than 14 + 1 (docs/gemm.md, "Row
  // blocks").
  const std::int64_t full_rows = problem.m / block_rows * block_rows;
  const auto tail = static_cast<int>(problem.m - full_rows);
  const bool lends = block_rows >= 6 && full_rows > 0 && (tail == 2 || tail == 3);
  std::int64_t row = 0;
  for (; row < full_rows - (lends ? block_rows : 0); row += block_rows) rows_block(block_rows, row);
  if (lends) {
    rows_block(block_rows - (4 - tail), row);
    rows_block(4, row + block_rows - (4 - tail));
  } else if (tail > 0) {
    rows_block(tail, row);
  }
}

// The columns a last block of `cols` <= lanes columns is computed on: a 512-bit vector, or half of
// one when they fit in half (unpacked_one_vector_block).
template <class T, class V>
int one_vector_width(int cols) {
  constexpr int lanes = lanes_of<V, T>;
  return sizeof(V) == 64 && cols <= lanes / 2 ? lanes / 2 : lanes;
}

// Copies `count` values (at least one; a row of a column block, at most NR) with fixed-size moves
// that the compiler inlines: 32-byte moves, the last one overlapping, or two overlapping moves of
// the largest power-of-two size that fits, as a small memcpy does inside, without the call.
template <class T>
[[gnu::always_inline]] inline void copy_short_row(T* destination, const T* source, int count) {
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  auto* to = reinterpret_cast<char*>(destination);
  const auto* from = reinterpret_cast<const char*>(source);
  auto two_moves = [&](auto size_constant) {
    constexpr std::size_t size = decltype(size_constant)::value;
    std::memcpy(to, from, size);
    std::memcpy(to + bytes - size, from + bytes - size, size);
  };
  if (bytes > 64) {
    for (std::size_t at = 0; at + 32 < bytes; at += 32) std::memcpy(to + at, from + at, 32);
    std::memcpy(to + bytes - 32, from + bytes - 32, 32);
  } else if (bytes >= 32) two_moves(std::integral_constant<std::size_t, 32>{});
  else if (bytes >= 16) two_moves(std::integral_constant<std::size_t, 16>{});
  else if (bytes >= 8) two_moves(std::integral_constant<std::size_t, 8>{});
  else two_moves(std::integral_constant<std::size_t, 4>{});
}

// A last block of `cols` columns, at most one vector, readable at b (rows b_row_stride apart, at
// least a vector's width of them readable): on a 512-bit vector, or on half of one when the columns
// fit in half. The half-width kernel issues as many FMA instructions as the full one where 512-bit
// FMAs are full width (Zen 5, Intel), and half the work where they are double pumped: on a Zen 4,
// 256x512x8 f32 ran at 48 GFLOP/s on zmm vectors half zero, 79 on ymm (docs/gemm.md).
template <class T, class V, int MR>
void unpacked_one_vector_block(const detail::RegionProblem<T>& problem, std::int64_t col, int cols, const T* b,
                               std::int64_t b_row_stride) {
  if constexpr (sizeof(V) == 64) {  // the half vector exists at 512 bits only (one_vector_width)
    if (one_vector_width<T, V>(cols) < lanes_of<V, T>) {
      unpacked_column_blocks<T, typename VectorOf<T, 32>::type, MR, 1>(problem, col, 1, cols, b, b_row_stride, 0);
      return;
    }
  }
  unpacked_column_blocks<T, V, MR, 1>(problem, col, 1, cols, b, b_row_stride, 0);
}

// B as zero-padded NR-wide panels of all k steps (the layout of RegionProblem::b_packed): the kernel
// reads each panel as rows of stride NR. A is read in place.
template <class T, class V, int MR, int NR>
void unpacked_over_panels(const detail::RegionProblem<T>& problem, const T* panels) {
  constexpr int NV = NR / lanes_of<V, T>;
  const std::int64_t n = problem.n, k = problem.k;
  const std::int64_t group = detail::unpacked_group_blocks(problem.blocking, k, sizeof(T), problem.epilogue != nullptr);
  const std::int64_t full_blocks = n / NR;
  for (std::int64_t block = 0; block < full_blocks; block += group) {
    const std::int64_t blocks = std::min(group, full_blocks - block);
    unpacked_column_blocks<T, V, MR, NV>(problem, block * NR, blocks, NR, panels + block * NR * k, NR, k * NR);
  }
  const std::int64_t col = full_blocks * NR;
  const int cols = static_cast<int>(n - col);
  if (cols > lanes_of<V, T>) unpacked_column_blocks<T, V, MR, NV>(problem, col, 1, cols, panels + col * k, NR, 0);
  else if (cols > 0) unpacked_one_vector_block<T, V, MR>(problem, col, cols, panels + col * k, NR);
}

// B with strided rows (e.g. column-major, the transposed weight of a dense layer): packed once,
// whole, into zero-padded NR-wide panels (packing.hpp), which the kernel then reads as rows of
// stride NR. A is still read in place.
template <class T, class V, int MR, int NR>
void unpacked_gemm_packed_b(const detail::RegionProblem<T>& problem) {
  constexpr int lanes = lanes_of<V, T>;
  const std::int64_t n = problem.n, k = problem.k;
  T* packed_b = problem.workspace;
  const PackSource<T> b_source{problem.b, problem.b_narrow, problem.b_storage};
  if (n <= lanes) {  // skinny: one vector wide, not NR
    pack_block<lanes>(n, k, b_source, problem.b_col_stride, problem.b_row_stride, packed_b);
    unpacked_one_vector_block<T, V, MR>(problem, 0, static_cast<int>(n), packed_b, lanes);
    return;
  }
  pack_block<NR>(n, k, b_source, problem.b_col_stride, problem.b_row_stride, packed_b);
  unpacked_over_panels<T, V, MR, NR>(problem, packed_b);
}

// A's m x k values of a 16-bit `source` converted into `destination`, row-major and contiguous.
template <class Source>
void convert_rows(std::int64_t m, std::int64_t k, const typename Source::Element* source, std::int64_t row_stride,
                  std::int64_t col_stride, float* destination) {
  if (col_stride == 1) {
    for (std::int64_t i = 0; i < m; ++i) copy_converted<Source>(destination + i * k, source + i * row_stride, k);
  } else {  // column by column, so that a column-major A is read in order
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t i = 0; i < m; ++i) destination[i * k + p] = Source::at(source + i * row_stride + p * col_stride);
  }
}

template <class T, class V, int MR, int NR>
void unpacked_gemm_native_a(const detail::RegionProblem<T>& problem);

// Region function of the unpacked path. Requires k >= 1 and a workspace of
// unpacked_workspace_elements() values, plus unpacked_a_copy_elements() first when A is stored in
// 16 bits: A is then converted there once (the path's size rule keeps it within L2) and read from
// the copy. A B stored in 16 bits is packed whole, converted, as a B with strided rows is.
template <class T, class V, int MR, int NR>
void unpacked_gemm(const detail::RegionProblem<T>& problem) {
  if constexpr (std::is_same_v<T, float>) {
    if (problem.a_storage != Storage::native) {
      detail::RegionProblem<T> converted = problem;
      if (problem.a_storage == Storage::f16)
        convert_rows<F16Source>(problem.m, problem.k, problem.a_narrow, problem.a_row_stride, problem.a_col_stride,
                                problem.workspace);
      else
        convert_rows<Bf16Source>(problem.m, problem.k, problem.a_narrow, problem.a_row_stride, problem.a_col_stride,
                                 problem.workspace);
      converted.a = problem.workspace;
      converted.a_narrow = nullptr;
      converted.a_storage = Storage::native;
      converted.a_row_stride = problem.k;
      converted.a_col_stride = 1;
      converted.workspace = problem.workspace + detail::unpacked_a_copy_elements(problem.m, problem.k, sizeof(T));
      unpacked_gemm_native_a<T, V, MR, NR>(converted);
      return;
    }
  }
  unpacked_gemm_native_a<T, V, MR, NR>(problem);
}

template <class T, class V, int MR, int NR>
void unpacked_gemm_native_a(const detail::RegionProblem<T>& problem) {
  if (problem.b_packed != nullptr) {  // packed ahead of time (GemmArgs::packed_b)
    unpacked_over_panels<T, V, MR, NR>(problem, problem.b_packed);
    return;
  }
  if (problem.b_col_stride != 1 || problem.b_storage != Storage::native) {
    unpacked_gemm_packed_b<T, V, MR, NR>(problem);
    return;
  }
  constexpr int lanes = lanes_of<V, T>;
  constexpr int NV = NR / lanes;
  const std::int64_t n = problem.n, k = problem.k;
  const std::int64_t group = detail::unpacked_group_blocks(problem.blocking, k, sizeof(T), problem.epilogue != nullptr);
  const std::int64_t full_blocks = n / NR;
  for (std::int64_t block = 0; block < full_blocks; block += group) {
    const std::int64_t blocks = std::min(group, full_blocks - block);
    unpacked_column_blocks<T, V, MR, NV>(problem, block * NR, blocks, NR, problem.b + block * NR,
                                         problem.b_row_stride, NR, problem.workspace);
  }
  const std::int64_t col = full_blocks * NR;
  if (col == n) return;
  // The last columns: copy them zero padded so the kernel's full-vector loads stay in bounds, as
  // wide as the vector that will read them. The buffer is zeroed at once and each row copied with
  // inlined moves: a memcpy and a fill called per row cost more than the product itself when the
  // rows are narrow (1x4096x1 f32: 27 us for 8192 flops; docs/gemm.md).
  const int cols = static_cast<int>(n - col);
  const int width = cols <= lanes ? one_vector_width<T, V>(cols) : NR;
  T* padded = problem.workspace;
  std::memset(padded, 0, static_cast<std::size_t>(k * width) * sizeof(T));
  for (std::int64_t p = 0; p < k; ++p)
    copy_short_row(padded + p * width, problem.b + p * problem.b_row_stride + col, cols);
  if (cols <= lanes) unpacked_one_vector_block<T, V, MR>(problem, col, cols, padded, width);
  else unpacked_column_blocks<T, V, MR, NV>(problem, col, 1, cols, padded, width, 0);
}

}  // namespace
}  // namespace tensorjit::kernels
