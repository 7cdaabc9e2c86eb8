// Blocking per ISA, vector width and element type, as data (BLIS's cntx tables).
//
// Why these numbers (Zen 4/5: L1d 48 KiB, L2 1 MiB per core, L3 32 MiB shared; docs/gemm.md has
// the measurements):
//  - MR x NR: the micro-tile fills the vector register file: MR*NR/lanes accumulators plus NR/lanes
//    B vectors plus one broadcast A value (AVX-512: 14 x 2 zmm = 28 + 2 + 1 of 32; AVX2: 6 x 2 ymm
//    = 12 + 2 + 1 of 16).
//  - KC: C is reloaded once per KC block, and the 512-bit kernels run at full speed with their B
//    micro-panel (KC x NR) streaming from L2, so KC is large: 2048 (C is written once for
//    k <= 2048) measured 10-15 % faster at 1024^3 and 2048^3 than the textbook "B micro-panel in
//    half of L1" (KC = 192 or 384), and 3-6 % faster than 1024 at 2048^3. The 128/256-bit kernels
//    were insensitive (within 3 %) and keep the textbook values.
//  - MC: the packed A block (MC x KC) must stay in L2 next to the B micro-panel it meets (KC x NR,
//    256 KiB at KC = 2048): the 512-bit rows use MC = 28 (two micro-panels, 224 KiB f32 /
//    448 KiB f64), and each B micro-panel then streams from L3 in order, once per two tiles,
//    which the hardware prefetcher sustains. MC = 168 / 84, a block of 1.3 MiB at KC = 2048,
//    spilled A to L3; side by side the difference stayed within the noise of the shared machine
//    (up to 2 % for MC = 28 at 2048^3 f32 in the quieter run, docs/gemm.md).
//  - NC: the packed B block (KC x NC) lives in L3. At KC = 2048, NC from 512 to 2048 measured the
//    same (within 2 % at 2048^3), so NC keeps the block at 8 MiB: a quarter of L3, and the bound
//    on each thread's workspace (kept between calls).
// Each row is looked up at compile time by the ISA unit that instantiates it.
#pragma once

#include <cstdint>

namespace tensorjit::kernels::detail {

struct BlockingRow {
  int vector_bits;
  int element_bytes;
  int mr, nr;
  std::int64_t mc, kc, nc;
};

// clang-format off
inline constexpr BlockingRow portable_blocking[] = {
  // bits  bytes   MR   NR     MC    KC     NC
  {  128,    4,    4,   8,   128,  256,  4096 },
  {  128,    8,    4,   4,   128,  256,  4096 },
  {  256,    4,    4,  16,   128,  256,  4096 },
  {  256,    8,    4,   8,   128,  256,  4096 },
  {  512,    4,    4,  32,   128,  256,  4096 },
  {  512,    8,    4,  16,   128,  256,  4096 },
};

inline constexpr BlockingRow avx2_blocking[] = {
  // bits  bytes   MR   NR     MC    KC     NC
  {  128,    4,    6,   8,   144,  512,  4096 },
  {  128,    8,    6,   4,   144,  512,  4096 },
  {  256,    4,    6,  16,   144,  384,  4096 },
  {  256,    8,    6,   8,   144,  384,  4096 },
  {  512,    4,   14,  32,   168, 2048,  1024 },
  {  512,    8,   14,  16,    84, 2048,   512 },
};

inline constexpr BlockingRow avx512_blocking[] = {
  // bits  bytes   MR   NR     MC    KC     NC
  {  128,    4,    6,   8,   144,  512,  4096 },
  {  128,    8,    6,   4,   144,  512,  4096 },
  {  256,    4,    6,  16,   144,  384,  4096 },
  {  256,    8,    6,   8,   144,  384,  4096 },
  {  512,    4,   14,  32,    28, 2048,  1024 },
  {  512,    8,   14,  16,    28, 2048,   512 },
};
// clang-format on

template <std::size_t N>
constexpr BlockingRow find_blocking(const BlockingRow (&table)[N], int vector_bits, int element_bytes) {
  for (const BlockingRow& row : table)
    if (row.vector_bits == vector_bits && row.element_bytes == element_bytes) return row;
  return BlockingRow{0, 0, 0, 0, 0, 0, 0};
}

}  // namespace tensorjit::kernels::detail
