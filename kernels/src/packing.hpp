// Packing: copies a block of A or B, read in place through its signed element strides, into the
// contiguous zero-padded panels the micro-kernel streams (layout drawn in micro_kernel.hpp).
//
// Both operands pack the same way. A panel is W "lanes" (A: MR rows, B: NR columns) by `steps`
// (k) and is stored step-major: panel[p*W + l] = source[l*lane_stride + p*step_stride], with
// lanes width..W-1 zero. For A, lane_stride is A's row stride and step_stride its column stride;
// for B, lane_stride is B's column stride and step_stride its row stride. Row-major, column-major,
// transposed and sliced (negative) strides are all just strides here: nothing is copied first.
//
// The source may be stored narrower than the panel (16-bit floats into f32 panels, gemm.hpp's
// Storage): `Source` (narrow_float.hpp) converts each value as it is copied, a vector at a time on
// the contiguous paths, so no f32 copy of the operand is made first.
//
// Internal linkage: compiled per ISA unit with that unit's flags (see simd.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "narrow_float.hpp"
#include "tensorjit/kernels/gemm.hpp"
#include "simd.hpp"
#include "transpose.hpp"

namespace tensorjit::kernels {
namespace {

using UnitStride = std::integral_constant<std::int64_t, 1>;

// A full panel whose steps are contiguous and lanes far apart (row-major A, column-major B): L x L
// blocks are loaded along the steps, transposed in registers and stored along the lanes.
template <int W, class Source, class T>
[[gnu::always_inline]] inline void pack_full_panel_transposing(std::int64_t steps, const typename Source::Element* source,
                                                               std::int64_t lane_stride, T* panel) {
  constexpr int L = 32 / static_cast<int>(sizeof(T));
  using V = typename VectorOf<T, 32>::type;
  std::int64_t p = 0;
  for (; p + L <= steps; p += L) {
#pragma GCC unroll 8
    for (int first_lane = 0; first_lane < W; first_lane += L) {
      const int lanes_here = W - first_lane < L ? W - first_lane : L;
      V block[L];
#pragma GCC unroll 16
      for (int i = 0; i < L; ++i)
        block[i] = i < lanes_here ? Source::template load<V>(source + (first_lane + i) * lane_stride + p)
                                  : broadcast<V, T>(T(0));
      transpose_block<V, T>(block);
#pragma GCC unroll 16
      for (int i = 0; i < L; ++i) std::memcpy(panel + (p + i) * W + first_lane, &block[i], lanes_here * sizeof(T));
    }
  }
  for (; p < steps; ++p)
#pragma GCC unroll 64
    for (int lane = 0; lane < W; ++lane) panel[p * W + lane] = Source::at(source + lane * lane_stride + p);
}

// One full or partial panel. LaneStride / StepStride are std::int64_t or UnitStride, so the
// contiguous cases compile to vector copies.
template <int W, class Source, class T, class LaneStride, class StepStride>
[[gnu::always_inline]] inline void pack_panel(std::int64_t steps, int width, const typename Source::Element* source,
                                              LaneStride lane_stride, StepStride step_stride, T* panel) {
  if (width == W) {
    if constexpr (std::is_same_v<StepStride, UnitStride>) {
      pack_full_panel_transposing<W, Source>(steps, source, lane_stride, panel);
    } else if constexpr (std::is_same_v<LaneStride, UnitStride>) {
      for (std::int64_t p = 0; p < steps; ++p) copy_converted<Source>(panel + p * W, source + p * step_stride, W);
    } else {
      for (std::int64_t p = 0; p < steps; ++p) {
        const typename Source::Element* step_source = source + p * step_stride;
#pragma GCC unroll 64
        for (int lane = 0; lane < W; ++lane) panel[p * W + lane] = Source::at(step_source + lane * lane_stride);
      }
    }
    return;
  }
  for (std::int64_t p = 0; p < steps; ++p) {
    const typename Source::Element* step_source = source + p * step_stride;
    for (int lane = 0; lane < width; ++lane) panel[p * W + lane] = Source::at(step_source + lane * lane_stride);
    for (int lane = width; lane < W; ++lane) panel[p * W + lane] = T(0);
  }
}

template <int W, class Source, class T, class LaneStride, class StepStride>
void pack_block_with(std::int64_t lanes, std::int64_t steps, const typename Source::Element* source,
                     LaneStride lane_stride, StepStride step_stride, T* packed) {
  for (std::int64_t first_lane = 0; first_lane < lanes; first_lane += W) {
    const int width = static_cast<int>(std::min<std::int64_t>(W, lanes - first_lane));
    pack_panel<W, Source>(steps, width, source + first_lane * lane_stride, lane_stride, step_stride, packed);
    packed += W * steps;
  }
}

// Lanes contiguous (row-major B): the full panels are filled step by step across the block, so
// each step of the source (a row of B) is read once, front to back, instead of W values of it per
// panel visit; the partial last panel goes through pack_panel.
template <int W, class Source, class T>
void pack_block_by_steps(std::int64_t lanes, std::int64_t steps, const typename Source::Element* source,
                         std::int64_t step_stride, T* packed) {
  const std::int64_t full_panels = lanes / W;
  for (std::int64_t p = 0; p < steps; ++p) {
    const typename Source::Element* step_source = source + p * step_stride;
    T* step_packed = packed + p * W;
    for (std::int64_t panel = 0; panel < full_panels; ++panel)
      copy_converted<Source>(step_packed + panel * W * steps, step_source + panel * W, W);
  }
  const std::int64_t done = full_panels * W;
  if (done < lanes)
    pack_panel<W, Source>(steps, static_cast<int>(lanes - done), source + done, UnitStride{}, step_stride,
                          packed + done * steps);
}

// Packs a lanes × steps block into ceil(lanes / W) panels of W × steps, one after the other.
template <int W, class Source, class T>
void pack_block_from(std::int64_t lanes, std::int64_t steps, const typename Source::Element* source,
                     std::int64_t lane_stride, std::int64_t step_stride, T* packed) {
  if (lane_stride == 1) {
    pack_block_by_steps<W, Source>(lanes, steps, source, step_stride, packed);
  } else if (step_stride == 1) {
    pack_block_with<W, Source>(lanes, steps, source, lane_stride, UnitStride{}, packed);
  } else {
    pack_block_with<W, Source>(lanes, steps, source, lane_stride, step_stride, packed);
  }
}

// An operand as the packing reads it: T values at `native`, or 16-bit values at `narrow` (T =
// float) with `storage` saying which; `offset` (elements) is added to whichever is read.
template <class T>
struct PackSource {
  const T* native = nullptr;
  const std::uint16_t* narrow = nullptr;
  Storage storage = Storage::native;
  PackSource at(std::int64_t offset) const {
    return storage == Storage::native ? PackSource{native + offset, nullptr, storage}
                                      : PackSource{nullptr, narrow + offset, storage};
  }
};

// pack_block_from for an operand of any storage.
template <int W, class T>
void pack_block(std::int64_t lanes, std::int64_t steps, const PackSource<T>& source, std::int64_t lane_stride,
                std::int64_t step_stride, T* packed) {
  if constexpr (std::is_same_v<T, float>) {
    if (source.storage == Storage::f16)
      return pack_block_from<W, F16Source>(lanes, steps, source.narrow, lane_stride, step_stride, packed);
    if (source.storage == Storage::bf16)
      return pack_block_from<W, Bf16Source>(lanes, steps, source.narrow, lane_stride, step_stride, packed);
  }
  pack_block_from<W, NativeSource<T>>(lanes, steps, source.native, lane_stride, step_stride, packed);
}

// pack_block for T values in memory.
template <int W, class T>
void pack_block(std::int64_t lanes, std::int64_t steps, const T* source, std::int64_t lane_stride,
                std::int64_t step_stride, T* packed) {
  pack_block_from<W, NativeSource<T>>(lanes, steps, source, lane_stride, step_stride, packed);
}

}  // namespace
}  // namespace tensorjit::kernels
