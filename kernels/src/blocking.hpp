// Blocking per ISA, vector width and element type, as data (BLIS's cntx tables).
//
// Why these numbers (Zen 4: L1d 48 KiB, L2 1 MiB per core, L3 32 MiB shared; docs/gemm.md):
//  - MR x NR: the micro-tile fills the vector register file: MR*NR/lanes accumulators plus NR/lanes
//    B vectors plus one broadcast A value (AVX-512: 14 x 2 zmm = 28 + 2 + 1 of 32; AVX2: 6 x 2 ymm
//    = 12 + 2 + 1 of 16).
//  - KC: one packed B micro-panel (KC x NR) stays in L1 while the kernel sweeps every A
//    micro-panel of the block past it, so KC*NR*bytes is about half of L1.
//  - MC: the packed A block (MC x KC) stays in L2 while the NR loop reuses it for every B panel,
//    so MC*KC*bytes is about half of L2.
//  - NC: the packed B block (KC x NC) lives in L3; it is large so that A is packed rarely.
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
  {  512,    4,   14,  32,   336,  192,  4096 },
  {  512,    8,   14,  16,   336,  192,  4096 },
};

inline constexpr BlockingRow avx512_blocking[] = {
  // bits  bytes   MR   NR     MC    KC     NC
  {  128,    4,    6,   8,   144,  512,  4096 },
  {  128,    8,    6,   4,   144,  512,  4096 },
  {  256,    4,    6,  16,   144,  384,  4096 },
  {  256,    8,    6,   8,   144,  384,  4096 },
  {  512,    4,   14,  32,   672,  192,  4096 },
  {  512,    8,   14,  16,   336,  192,  4096 },
};
// clang-format on

template <std::size_t N>
constexpr BlockingRow find_blocking(const BlockingRow (&table)[N], int vector_bits, int element_bytes) {
  for (const BlockingRow& row : table)
    if (row.vector_bits == vector_bits && row.element_bytes == element_bytes) return row;
  return BlockingRow{0, 0, 0, 0, 0, 0, 0};
}

}  // namespace tensorjit::kernels::detail
