// The lines a micro-kernel prefetches for the epilogue's reads (kernels/src/tile_prefetch.hpp,
// white box: the fetch is replaced by a recorder). For every k, each row of each read is fetched
// once, from the line of its first byte to the line of its last, and nothing else; a k loop of at
// least four steps per row fetches every row inside the loop, none before it.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "../../kernels/src/tile_prefetch.hpp"

namespace {

namespace tk = tensorjit::kernels;

using LineCounts = std::map<std::uintptr_t, int>;

// Three reads: floats whose rows are 37 elements apart and start 4 bytes into a line, the same
// with the rows in reverse order (a negative row stride), and doubles.
struct Operands {
  std::vector<float> forward = std::vector<float>(64 * 37 + 64);
  std::vector<float> reversed = std::vector<float>(64 * 37 + 64);
  std::vector<double> wide = std::vector<double>(64 * 40 + 64);
  tk::detail::RegionReads reads;

  Operands() {
    const std::int64_t f = sizeof(float), d = sizeof(double);
    add(forward.data() + 1, 37 * f, f);
    add(reversed.data() + 63 * 37, -37 * f, f);
    add(wide.data(), 40 * d, d);
  }

  void add(const void* origin, std::int64_t row_stride, std::int64_t element_bytes) {
    reads.origin[reads.count] = static_cast<const char*>(origin);
    reads.row_stride[reads.count] = row_stride;
    reads.element_bytes[reads.count] = element_bytes;
    ++reads.count;
  }
};

LineCounts expected_lines(const tk::detail::RegionReads& reads, std::int64_t row, std::int64_t col, int rows,
                          int cols) {
  LineCounts lines;
  for (int s = 0; s < reads.count; ++s)
    for (int r = 0; r < rows; ++r) {
      const auto begin = reinterpret_cast<std::uintptr_t>(reads.origin[s] + (row + r) * reads.row_stride[s] +
                                                          col * reads.element_bytes[s]);
      const std::uintptr_t end = begin + static_cast<std::uintptr_t>(cols * reads.element_bytes[s]);
      for (std::uintptr_t line = begin / 64 * 64; line < end; line += 64) ++lines[line];
    }
  return lines;
}

TEST_CASE("a tile's prefetch fetches each row of each read once, whatever k") {
  const Operands operands;
  for (int rows : {1, 5, 14})
    for (int cols : {1, 15, 16, 32})
      for (std::int64_t k = 0; k <= 4 * rows + 1; ++k) {
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(k);
        const std::int64_t row = 3, col = 2;
        const tk::TilePrefetch prefetch(operands.reads, row, col, rows, cols);
        LineCounts before, during;
        prefetch.before_loop(k, [&](std::uintptr_t line) { ++before[line]; });
        for (std::int64_t p = 0; p < k; ++p) prefetch.at_step(p, [&](std::uintptr_t line) { ++during[line]; });
        LineCounts all = before;
        for (const auto& [line, count] : during) all[line] += count;
        CHECK(all == expected_lines(operands.reads, row, col, rows, cols));
        if (k > 4 * (rows - 1)) CHECK(before.empty());
        if (k == 0) CHECK(during.empty());
      }
}

TEST_CASE("a tile without reads fetches nothing") {
  const tk::detail::RegionReads none;
  const tk::TilePrefetch prefetch(none, 0, 0, 14, 32);
  int fetched = 0;
  prefetch.before_loop(0, [&](std::uintptr_t) { ++fetched; });
  for (std::int64_t p = 0; p < 64; ++p) prefetch.at_step(p, [&](std::uintptr_t) { ++fetched; });
  CHECK(fetched == 0);
}

}  // namespace
