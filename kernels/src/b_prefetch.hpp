// B's rows fetched into L1 a fixed number of k steps before the micro-kernel and the unpacked
// kernel multiply them.
//
// Why: a k step of the 512-bit kernels reads a 128-byte row of B every 14 cycles (14 x 32 f32),
// and on the packed path the first of the two A micro-panels that meet each B micro-panel reads it
// from the packed B block in L3; on the unpacked path a model's weight panels, read once per
// product by a few rows, come from L3 or memory. The hardware's prefetchers did not keep up: on an
// Intel Xeon (family 6 model 207, one core reads 31 GB/s from L3) the kernels waited on B, and 32
// rows ahead measured 1.03-1.24x on 1024^3 and 2048^3 and 1.1-2x on products of 8 and 16 rows with
// MiniLM's weight shapes (docs/gemm.md, "Prefetching B"); 16 and 64 rows measured the same as 32.
// At 256 bits on that core it changed nothing.
//
// Contract: no value changes. The prefetched addresses may lie past B's end: a prefetch never
// faults.
#pragma once

#include "simd.hpp"

namespace tensorjit::kernels {
namespace {

// How many rows of B ahead of the one it multiplies a kernel prefetches.
inline constexpr int b_prefetch_rows = 32;

// Prefetches the NV vectors of one row of B (`row` points at its first element) into L1.
template <class V, int NV, class T>
[[gnu::always_inline]] inline void prefetch_b_row(const T* row) {
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) __builtin_prefetch(row + v * lanes_of<V, T>, 0, 3);
}

}  // namespace
}  // namespace tensorjit::kernels
