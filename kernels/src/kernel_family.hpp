// The interface between the driver (gemm.cpp, compiled with baseline flags) and the ISA units
// (isa_portable.cpp, isa_avx2.cpp, isa_avx512.cpp, each compiled with its own flags). Only plain
// data and function pointers cross it, so no ISA-specific code is inlined into the driver.
#pragma once

#include <cstdint>

#include "blocking.hpp"
#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels::detail {

// The store stage (gemm.hpp's StoreStage) as the kernels see it: `bias` points at the bias of the
// first column they compute (null: no bias), so a tile at column offset j passes bias + j.
template <class T>
struct TileStage {
  const T* bias = nullptr;
  bool relu = false;
  bool active() const { return bias != nullptr || relu; }
  TileStage at_column(std::int64_t column) const { return {bias != nullptr ? bias + column : nullptr, relu}; }
};

// GemmArgs::epilogue_reads as one region sees them: each read's element at the region's (0, 0).
struct RegionReads {
  const char* origin[kMaxEpilogueReads] = {};
  std::int64_t row_stride[kMaxEpilogueReads] = {};  // bytes
  std::int64_t element_bytes[kMaxEpilogueReads] = {};
  int count = 0;
};

// One rectangular region of one batch of C, computed whole (all of k) by one task.
template <class T>
struct RegionProblem {
  std::int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;  // element (0, 0) of the region's rows of A
  std::int64_t a_row_stride = 0, a_col_stride = 0;
  const T* b = nullptr;  // element (0, 0) of the region's columns of B
  std::int64_t b_row_stride = 0, b_col_stride = 0;
  // B packed ahead of time (GemmArgs::packed_b), at the region's first column: element (p, j) of
  // the region's B is b_packed[(j / NR) * k * NR + p * NR + j % NR]. Null: B is read or packed
  // from `b` as usual.
  const T* b_packed = nullptr;
  // 16-bit storage (MatrixView::storage): the operand's element (0, 0) is a_narrow / b_narrow
  // instead, and a / b are null.
  Storage a_storage = Storage::native, b_storage = Storage::native;
  const std::uint16_t* a_narrow = nullptr;
  const std::uint16_t* b_narrow = nullptr;
  T* c = nullptr;  // element (0, 0) of the region
  std::int64_t c_row_stride = 0;
  TileStage<T> stage{};  // applied to the region's final values, before the epilogue
  Epilogue<T> epilogue = nullptr;
  void* epilogue_context = nullptr;
  std::int64_t batch = 0, row0 = 0, col0 = 0;  // where the region sits, for the epilogue
  Blocking blocking{};
  T* workspace = nullptr;  // workspace_elements(...) values, 64-byte aligned
  // GemmArgs::epilogue_consumes_c: where the regions the hook consumes are stored instead of C
  // (epilogue_scratch_elements(...) values, 64-byte aligned); null otherwise.
  T* epilogue_scratch = nullptr;
  RegionReads epilogue_reads{};  // prefetched by the micro-kernels computing the last KC block
};

template <class T>
using RegionFunction = void (*)(const RegionProblem<T>&);

// Packs all of a k x n B (element (p, j) at b[p * row_stride + j * col_stride], or at narrow with
// 16-bit storage) into NR-wide panels of all k steps, zero padded: the layout of
// RegionProblem::b_packed.
template <class T>
using PackBFunction = void (*)(std::int64_t k, std::int64_t n, const T* b, const std::uint16_t* narrow,
                               Storage storage, std::int64_t row_stride, std::int64_t col_stride, T* destination);

// The kernels of one ISA at one vector width.
struct KernelFamily {
  const char* instruction_set = "";
  int vector_bits = 0;
  // The table's rows given MC/KC/NC by blocking_for() and this CPU's caches, once, when the family
  // is first used (a small product cannot afford the rules' divisions on every call).
  Blocking float_blocking{}, double_blocking{};
  RegionFunction<float> float_packed = nullptr;
  RegionFunction<double> double_packed = nullptr;
  RegionFunction<float> float_unpacked = nullptr;
  RegionFunction<double> double_unpacked = nullptr;
  PackBFunction<float> float_pack_b = nullptr;
  PackBFunction<double> double_pack_b = nullptr;
};

// vector_bits is 128, 256 or 512.
const KernelFamily& portable_family(int vector_bits);
const KernelFamily& avx2_family(int vector_bits);
const KernelFamily& avx512_family(int vector_bits);

// Packing space the five loops need for an m x n x k region with this blocking, in elements,
// each packed block starting on a 64-byte boundary.
inline std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
template <class T>
std::int64_t packed_a_elements(const Blocking& blocking, std::int64_t m, std::int64_t k) {
  const std::int64_t rows = round_up(m < blocking.mc ? m : blocking.mc, blocking.mr);
  const std::int64_t depth = k < blocking.kc ? k : blocking.kc;
  return round_up(rows * depth, 64 / static_cast<std::int64_t>(sizeof(T)));
}
template <class T>
std::int64_t workspace_elements(const Blocking& blocking, std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t columns = round_up(n < blocking.nc ? n : blocking.nc, blocking.nr);
  const std::int64_t depth = k < blocking.kc ? k : blocking.kc;
  return packed_a_elements<T>(blocking, m, k) + columns * depth;
}

// How many NR-wide column panels of one MC-row block the packed path finishes before each epilogue
// call: as many as keep the region (mc rows of them) within 64 KiB, up to 16 (2 KiB per row of C
// at the 512-bit f32 tile, the unpacked path's row of tiles). One call per micro-tile read a
// residual 14 rows x 128 bytes at a time, which the hardware prefetchers cannot follow.
template <class T>
std::int64_t packed_epilogue_panels(const Blocking& blocking) {
  const std::int64_t panel_bytes = blocking.mc * blocking.nr * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t fit = (std::int64_t{64} << 10) / panel_bytes;
  return fit < 1 ? 1 : fit > 16 ? 16 : fit;
}

// How many NR-wide column blocks the unpacked path runs side by side for each row block. With an
// epilogue hook, as many as keep their B (k x NR each) within 256 KiB, so it is reread from L2, up
// to 16 (2 KiB per row of C): each hook call then gets a row of tiles, and reads its other
// operands a row of blocks at a time (docs/gemm.md). Without one, 1: the plain product kept its
// measured speed that way.
inline std::int64_t unpacked_group_blocks(const Blocking& blocking, std::int64_t k, std::int64_t element_bytes,
                                          bool has_epilogue) {
  if (!has_epilogue) return 1;
  const std::int64_t block_bytes = k * blocking.nr * element_bytes;
  const std::int64_t fit = (std::int64_t{256} << 10) / (block_bytes > 0 ? block_bytes : 1);
  return fit < 1 ? 1 : fit > 16 ? 16 : fit;
}

// Workspace of the unpacked path: the copies of one group of B's column blocks (k x NR each, made
// by the first row block) or a zero-padded k x NR copy of B's last columns; all of B packed when
// its rows are strided.
inline std::int64_t unpacked_workspace_elements(const Blocking& blocking, std::int64_t n, std::int64_t k,
                                                bool b_rows_contiguous, std::int64_t element_bytes,
                                                bool has_epilogue, bool b_packed_ahead = false) {
  if (b_packed_ahead) return 0;  // the kernels read the panels; partial blocks go through a stack tile
  if (!b_rows_contiguous) return k * round_up(n, blocking.nr);
  return k * blocking.nr * unpacked_group_blocks(blocking, k, element_bytes, has_epilogue);
}

// L1 data caches of x86 cores pick a line's set from address bits 6-11 (64 sets of 64 bytes: 32 KiB
// 8-way on Zen 2-4, 48 KiB 12-way on Zen 5 and Intel since Ice Lake), so lines 4 KiB apart share
// a set, and l1_fewest_ways is the fewest ways among them. An unpacked kernel reading its rows of A
// in place keeps a line of each row live, and rows a multiple of 4 KiB apart (k = 1024 f32, 512
// f64) put all 14 into one set: on a Zen 4, 256x512x16 f64 ran at 73 % of the FMA peak and
// 256x500x16 at 94 % (docs/gemm.md, "Rows of A in one L1 set").
constexpr std::int64_t l1_set_period_bytes = 4096;
constexpr int l1_fewest_ways = 8;

// The most lines that `rows` rows `row_stride_bytes` apart put into one L1 set (rows within one
// line count once: a transposed A's rows are adjacent).
inline int rows_in_one_l1_set(int rows, std::int64_t row_stride_bytes) {
  constexpr std::int64_t line_bytes = 64, sets = l1_set_period_bytes / line_bytes;
  const std::int64_t stride = row_stride_bytes < 0 ? -row_stride_bytes : row_stride_bytes;
  int count[sets] = {};
  int most = 0;
  for (std::int64_t r = 0, last_line = -1; r < rows; ++r) {
    const std::int64_t line = r * stride / line_bytes;
    if (line != last_line && ++count[line % sets] > most) most = count[line % sets];
    last_line = line;
  }
  return most;
}

// The rows of the unpacked path's full row blocks: MR, or, when MR rows of A read in place would
// crowd one L1 set beyond l1_fewest_ways, MR split into the fewest equal parts that do not (14
// rows 4 KiB apart: blocks of 7). Any split gives the same bits: each element is one FMA chain.
inline int unpacked_block_rows(int mr, std::int64_t a_row_stride_bytes) {
  for (int parts = 1;; ++parts) {
    const int rows = (mr + parts - 1) / parts;
    if (rows == 1 || rows_in_one_l1_set(rows, a_row_stride_bytes) <= l1_fewest_ways) return rows;
  }
}

// The f32 copy of a region's A that the unpacked path makes when A is stored in 16 bits (m x k,
// row-major), rounded to whole cache lines; it precedes unpacked_workspace_elements().
inline std::int64_t unpacked_a_copy_elements(std::int64_t m, std::int64_t k, std::int64_t element_bytes) {
  return round_up(m * k, 64 / element_bytes);
}

// Scratch for the regions a hook consumes (GemmArgs::epilogue_consumes_c): one region, MR rows
// of a group of column blocks on the unpacked path, MC rows of packed_epilogue_panels() panels on
// the packed one (about 64 KiB with the tables' MC), rounded to whole cache lines.
template <class T>
std::int64_t epilogue_scratch_elements(const Blocking& blocking, bool unpacked_path, std::int64_t k) {
  const std::int64_t elements =
      unpacked_path ? blocking.mr * blocking.nr * unpacked_group_blocks(blocking, k, sizeof(T), true)
                    : blocking.mc * blocking.nr * packed_epilogue_panels<T>(blocking);
  return round_up(elements, 64 / static_cast<std::int64_t>(sizeof(T)));
}

}  // namespace tensorjit::kernels::detail
