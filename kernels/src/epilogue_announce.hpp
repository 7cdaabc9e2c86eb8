// The epilogue prefetch hook's side of the loop nests (gemm.hpp's EpiloguePrefetch): while the
// micro-kernels compute the tiles of one epilogue region, the region after it is announced a few
// rows at a time, one piece before each column block, so the hook's loads spread over the
// arithmetic instead of all missing when the epilogue runs.
//
// Internal linkage: compiled per ISA unit (see simd.hpp).
#pragma once

#include <cstdint>

#include "kernel_family.hpp"

namespace tensorjit::kernels {
namespace {

// Announces piece `piece` of `pieces` of the next region, `rows` x `cols` at (row, col) of the
// task's region (no call when the hook is absent, the region empty or the piece has no rows).
template <class T>
[[gnu::always_inline]] inline void announce_piece(const detail::RegionProblem<T>& problem, std::int64_t row,
                                                  std::int64_t rows, std::int64_t col, std::int64_t cols,
                                                  std::int64_t piece, std::int64_t pieces) {
  if (problem.epilogue_prefetch == nullptr || rows <= 0 || cols <= 0) return;
  const std::int64_t first = piece * rows / pieces, last = (piece + 1) * rows / pieces;
  if (last > first)
    problem.epilogue_prefetch(problem.epilogue_context, problem.row0 + row + first, problem.col0 + col, last - first,
                              cols, problem.batch);
}

}  // namespace
}  // namespace tensorjit::kernels
