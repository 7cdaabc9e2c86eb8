// Builds one ISA unit's KernelFamily entries from its blocking table: instantiates the micro-kernel
// for the table's MR x NR at each vector width and the five loops around it (the cache blocks are
// chosen at run time, blocking_for()). Included only by the
// isa_*.cpp units, each compiled with its own flags.
#pragma once

#include "blocking.hpp"
#include "five_loops.hpp"
#include "kernel_family.hpp"
#include "micro_kernel.hpp"
#include "simd.hpp"
#include "unpacked_gemm.hpp"

namespace tensorjit::kernels {
namespace {

template <class T, int VectorBits, const auto& Table>
struct FamilyMember {
  static constexpr detail::BlockingRow row = detail::find_blocking(Table, VectorBits, sizeof(T));
  static_assert(row.mr > 0, "the blocking table has no row for this width and type");
  using Vector = typename VectorOf<T, VectorBits / 8>::type;
  static constexpr int lanes = lanes_of<Vector, T>;
  static_assert(row.nr % lanes == 0);
  using Kernel = MicroKernel<T, Vector, row.mr, row.nr / lanes>;
};

// The layout of RegionProblem::b_packed: all of B in NR-wide panels of all k steps.
template <class T, int NR>
void pack_whole_b(std::int64_t k, std::int64_t n, const T* b, const std::uint16_t* narrow, Storage storage,
                  std::int64_t row_stride, std::int64_t col_stride, T* destination) {
  pack_block<NR>(n, k, PackSource<T>{b, narrow, storage}, col_stride, row_stride, destination);
}

template <int VectorBits, const auto& Table>
detail::KernelFamily build_family(const char* instruction_set) {
  using Float = FamilyMember<float, VectorBits, Table>;
  using Double = FamilyMember<double, VectorBits, Table>;
  return detail::KernelFamily{
      instruction_set,
      VectorBits,
      detail::blocking_for(Float::row, host_cache_sizes()),
      detail::blocking_for(Double::row, host_cache_sizes()),
      &gemm_five_loops<float, typename Float::Kernel>,
      &gemm_five_loops<double, typename Double::Kernel>,
      &unpacked_gemm<float, typename Float::Vector, Float::row.mr, Float::row.nr>,
      &unpacked_gemm<double, typename Double::Vector, Double::row.mr, Double::row.nr>,
      &pack_whole_b<float, Float::row.nr>,
      &pack_whole_b<double, Double::row.nr>,
  };
}

template <const auto& Table>
const detail::KernelFamily& family_for_width(const char* instruction_set, int vector_bits) {
  static const detail::KernelFamily families[] = {
      build_family<128, Table>(instruction_set),
      build_family<256, Table>(instruction_set),
      build_family<512, Table>(instruction_set),
  };
  return families[vector_bits == 128 ? 0 : vector_bits == 256 ? 1 : 2];
}

}  // namespace
}  // namespace tensorjit::kernels
