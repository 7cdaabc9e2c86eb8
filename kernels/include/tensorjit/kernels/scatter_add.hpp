// Adding rows of values into a buffer at the rows their indices name, in one fixed order: the
// kernel behind tensorjit's index_add and scatter_add (docs/indexing.md). Knows nothing of the IR:
// the caller (the runtime's scatter step) walks its operands' layouts into per-row offsets.
//
// Source row r (0 <= r < rows, in the caller's order: increasing position) holds `row_length`
// values at values[value_offsets[r] + j * value_stride] and one index at indices[index_offsets[r]]
// (int32 or int64). The index i names element k = i (or i + extent when i < 0) of an axis of
// `extent` elements; the row is added element for element to
//     out[destination_offsets[r] + k * axis_stride + j]            (out's rows are contiguous)
// Order: every destination element receives its source rows in increasing r, one add after the
// other, whatever the thread count: the rows are bucketed by destination (a stable counting sort, or
// a stable sort when the destinations are too many for buckets) and each task adds whole buckets.
// So the result is bit for bit the sequential loop's. Destinations of two rows either coincide or
// do not overlap (out is contiguous and its rows are `row_length` apart, as the caller lays it).
// Every index is checked before anything is written: an index outside [-extent, extent) leaves out
// untouched and is reported (the first such row).
#pragma once

#include <cstdint>

#include <tensorjit/kernels/parallel_for.hpp>

namespace tensorjit::kernels {

enum class ScatterElement : std::uint8_t { f32, f64, i32, i64 };

struct ScatterAddArgs {
  ScatterElement element = ScatterElement::f32;
  std::int64_t rows = 0;
  std::int64_t row_length = 1;
  const void* values = nullptr;
  const std::int64_t* value_offsets = nullptr;  // per row, in elements
  std::int64_t value_stride = 1;                // between a row's elements
  const void* indices = nullptr;
  bool indices_are_i64 = true;
  const std::int64_t* index_offsets = nullptr;        // per row, in elements
  const std::int64_t* destination_offsets = nullptr;  // per row, in elements: the row at k = 0
  std::int64_t extent = 0;                            // the indexed axis's elements
  std::int64_t axis_stride = 0;                       // out's elements between k and k + 1
  void* out = nullptr;
  std::int64_t out_elements = 0;  // every destination lies in [0, out_elements)
  ParallelFor parallel_for{};
};

// The first row whose index is out of range, or row == -1 when every index was in range and
// the rows were added.
struct ScatterFault {
  std::int64_t row = -1;
  std::int64_t index = 0;
};

// Throws std::invalid_argument for arguments outside the contract above (a destination outside
// out, which a caller bug would make).
ScatterFault scatter_add_rows(const ScatterAddArgs& args);

}  // namespace tensorjit::kernels
