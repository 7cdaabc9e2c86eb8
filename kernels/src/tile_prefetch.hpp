// The epilogue's reads (GemmArgs::epilogue_reads) fetched by the micro-kernels while they compute
// the tile the reads belong to.
//
// Why in the k loop: the hook runs once a whole region is computed (a row of up to 16 tiles on
// the unpacked path, MC rows of up to 16 micro-panels on the packed one). A residual's 14 rows x
// 2 KiB for such a region came from memory only when the hook's own loop reached them, two rows
// ahead, and with a cheap activation the hook then waited on memory for a third of its time
// (docs/epilogues.md, ninth session). Fetched while the tiles compute, the lines wait in L1 or L2
// instead. Spread one row every fourth k step, the fetches stay clear of the micro-kernel's own
// loads: the same lines requested all at once before each tile, or a whole region between tiles,
// filled the miss buffers and slowed the micro-kernel by more than the hook gained (sixth and
// seventh sessions, and again in the ninth). Only a k loop shorter than four steps per row issues
// the rows it does not reach at once, before it; such a tile computes too fast to be slowed much.
//
// Internal linkage: compiled per ISA unit with that unit's flags (see simd.hpp).
#pragma once

#include <cstdint>

#include "kernel_family.hpp"

namespace tensorjit::kernels {
namespace {

// What the micro-kernels do with each line: prefetch it into L1 for reading. Tests pass a
// recorder instead.
struct PrefetchLine {
  [[gnu::always_inline]] void operator()(std::uintptr_t line) const {
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
  }
};

// One tile's lines of the reads: `rows` rows of `cols` elements from the tile's (row, col) in the
// region. Its arrays are set only for the reads there are: a tile without reads costs two stores.
//
// Everything here is always inlined: GCC takes a function whose only effect is a prefetch for one
// without side effects, and deletes its calls.
class TilePrefetch {
 public:
  TilePrefetch(const detail::RegionReads& reads, std::int64_t row, std::int64_t col, int rows, int cols)
      : count_(reads.count), rows_(rows) {
    for (int s = 0; s < count_; ++s) {
      first_[s] = reads.origin[s] + row * reads.row_stride[s] + col * reads.element_bytes[s];
      row_stride_[s] = reads.row_stride[s];
      row_bytes_[s] = cols * reads.element_bytes[s];
    }
  }

  // Before a k loop of k steps: the rows its steps will not reach (those from ceil(k / 4) on).
  template <class Fetch = PrefetchLine>
  [[gnu::always_inline]] void before_loop(std::int64_t k, Fetch fetch = {}) const {
    for (std::int64_t r = (k + kStepsPerRow - 1) / kStepsPerRow; r < rows_; ++r) row(static_cast<int>(r), fetch);
  }

  // At step p of the k loop: row p / 4 when p is a multiple of 4.
  template <class Fetch = PrefetchLine>
  [[gnu::always_inline]] void at_step(std::int64_t p, Fetch fetch = {}) const {
    if (p % kStepsPerRow == 0 && p < kStepsPerRow * rows_) row(static_cast<int>(p / kStepsPerRow), fetch);
  }

 private:
  static constexpr int kStepsPerRow = 4;

  // Every line row r of each read touches, from the line of its first byte: a row that starts
  // inside a line (a std::vector's data, 16 bytes in) spans one line more than its size.
  template <class Fetch>
  [[gnu::always_inline]] void row(int r, Fetch fetch) const {
    for (int s = 0; s < count_; ++s) {
      const auto begin = reinterpret_cast<std::uintptr_t>(first_[s] + r * row_stride_[s]);
      const std::uintptr_t end = begin + static_cast<std::uintptr_t>(row_bytes_[s]);
      for (std::uintptr_t line = begin & ~std::uintptr_t{63}; line < end; line += 64) fetch(line);
    }
  }

  const char* first_[kMaxEpilogueReads];
  std::int64_t row_stride_[kMaxEpilogueReads];
  std::int64_t row_bytes_[kMaxEpilogueReads];
  int count_;
  int rows_;
};

}  // namespace
}  // namespace tensorjit::kernels
