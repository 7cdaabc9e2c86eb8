// Blocking per ISA, vector width and element type: the tables give what is fixed by the compiled
// micro-kernel (MR x NR, the element size, and where its B micro-panel lives); blocking_for() turns
// them and the CPU's cache sizes (cache_sizes.cpp) into MC/KC/NC at run time, by the rules below
// (docs/gemm.md, "The blocking rules", has the table of what each CPU kind gets and the
// measurements).
//
//  - MR x NR: the micro-tile fills the vector register file: MR*NR/lanes accumulators plus NR/lanes
//    B vectors plus one broadcast A value (AVX-512: 14 x 2 zmm = 28 + 2 + 1 of 32; AVX2: 6 x 2 ymm
//    = 12 + 2 + 1 of 16).
//  - `l1` rows (the BLIS model, Low et al. 2016): the B micro-panel (KC x NR) is reused by every
//    A micro-panel of the block and stays in L1: it takes 3/4 of L1d (6 of every set's 8 ways,
//    since the panel is contiguous); the rest holds the A micro-panel, which each tile reads once
//    as it streams in from L2, and the C tile. The A block (MC x KC) is reused by every B
//    micro-panel and takes half of L2. (Half of L1 for B, BLIS's Zen 3 KC = 256, and 3/4 were not
//    separable on a shared znver3; 3/4 gives the former constant KC = 384 there, docs/gemm.md.)
//  - `l2` rows (the 512-bit kernels): measured on Zen 5, they keep full speed with both micro-panels
//    streaming from L2, and C is then reloaded once per KC block, so KC is as large as L2 allows up
//    to 2048 (10-15 % faster than the L1 rule's KC at 1024^3 and 2048^3): two A micro-panels
//    (MC = 2 MR) and the B micro-panel they meet take at most 3/4 of L2.
//  - NC: the packed B block (KC x NC) lives in L3 and takes half of one core's share of it. Two
//    bounds: A is packed again for every NC columns (each element read and written once per
//    2 x NC flops), so NC is at least 1024; and the block is at most 8 MiB, the bound of each
//    thread's workspace, which is kept between calls.
// Every rule only moves block boundaries: each element of C stays one FMA chain in increasing k.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels::detail {

struct Blocking {
  int mr = 0, nr = 0;                  // micro-tile, fixed by the compiled micro-kernel
  std::int64_t mc = 0, kc = 0, nc = 0;  // cache blocks: mc % mr == 0, nc % nr == 0
};

// Where the micro-kernel's B micro-panel (KC x NR) is kept between the A micro-panels that use it.
enum class PanelHome { l1, l2 };

struct BlockingRow {
  int vector_bits;
  int element_bytes;
  int mr, nr;
  PanelHome home;
};

// clang-format off
inline constexpr BlockingRow portable_blocking[] = {
  // bits  bytes   MR   NR   B micro-panel
  {  128,    4,    4,   8,   PanelHome::l1 },
  {  128,    8,    4,   4,   PanelHome::l1 },
  {  256,    4,    4,  16,   PanelHome::l1 },
  {  256,    8,    4,   8,   PanelHome::l1 },
  {  512,    4,    4,  32,   PanelHome::l1 },
  {  512,    8,    4,  16,   PanelHome::l1 },
};

inline constexpr BlockingRow avx2_blocking[] = {
  // bits  bytes   MR   NR   B micro-panel
  {  128,    4,    6,   8,   PanelHome::l1 },
  {  128,    8,    6,   4,   PanelHome::l1 },
  {  256,    4,    6,  16,   PanelHome::l1 },
  {  256,    8,    6,   8,   PanelHome::l1 },
  {  512,    4,   14,  32,   PanelHome::l2 },
  {  512,    8,   14,  16,   PanelHome::l2 },
};

inline constexpr BlockingRow avx512_blocking[] = {
  // bits  bytes   MR   NR   B micro-panel
  {  128,    4,    6,   8,   PanelHome::l1 },
  {  128,    8,    6,   4,   PanelHome::l1 },
  {  256,    4,    6,  16,   PanelHome::l1 },
  {  256,    8,    6,   8,   PanelHome::l1 },
  {  512,    4,   14,  32,   PanelHome::l2 },
  {  512,    8,   14,  16,   PanelHome::l2 },
};
// clang-format on

template <std::size_t N>
constexpr BlockingRow find_blocking(const BlockingRow (&table)[N], int vector_bits, int element_bytes) {
  for (const BlockingRow& row : table)
    if (row.vector_bits == vector_bits && row.element_bytes == element_bytes) return row;
  return BlockingRow{0, 0, 0, 0, PanelHome::l1};
}

// The cache description used when neither sysfs nor CPUID gives one: small enough for any x86
// core of the last decade (32 KiB L1d, 256 KiB L2, 1 MiB of L3).
inline constexpr CacheSizes fallback_cache_sizes{32 << 10, 256 << 10, 1 << 20, "fallback"};

// The rules' constants (see the top of this file).
inline constexpr std::int64_t kc_limit = 2048;               // C written once for k <= 2048
inline constexpr std::int64_t nc_floor = 1024;               // A repacked once per >= 1024 columns
inline constexpr std::int64_t b_block_limit = std::int64_t{8} << 20;  // per-thread workspace bound

// The cache blocks (mr, nr, mc, kc, nc) of one table row on a CPU with these caches: mc a multiple
// of MR, nc of NR, kc a multiple of 8; each at least one micro-tile's worth.
constexpr Blocking blocking_for(const BlockingRow& row, const CacheSizes& caches) {
  const std::int64_t e = row.element_bytes, mr = row.mr, nr = row.nr;
  const std::int64_t l1 = caches.l1d_bytes > 0 ? caches.l1d_bytes : fallback_cache_sizes.l1d_bytes;
  const std::int64_t l2 = caches.l2_bytes > 0 ? caches.l2_bytes : fallback_cache_sizes.l2_bytes;
  const std::int64_t l3 = caches.l3_bytes_per_core;
  const auto round_down = [](std::int64_t value, std::int64_t multiple) {
    return std::max(value / multiple * multiple, multiple);
  };
  std::int64_t mc = 0, kc = 0;
  if (row.home == PanelHome::l1) {
    kc = std::min(round_down(l1 * 3 / 4 / (nr * e), 8), kc_limit);
    mc = round_down(l2 / 2 / (kc * e), mr);
  } else {
    mc = 2 * mr;
    kc = std::min(round_down(l2 * 3 / 4 / ((mc + nr) * e), 256), kc_limit);
  }
  const std::int64_t b_row_bytes = kc * e;
  std::int64_t nc = std::max(l3 / 2 / b_row_bytes, nc_floor);
  nc = round_down(std::min(nc, b_block_limit / b_row_bytes), nr);
  return Blocking{row.mr, row.nr, mc, kc, nc};
}

}  // namespace tensorjit::kernels::detail
