// The lanes of a row kernel's column_reduce phase (codegen/row_kernel.hpp): for a sum over the
// rows of each column, one row of `columns` accumulators per (block, lane) of the strict order
// (ir/reduction_order.hpp) over the rows, which the kernel adds rows into, and the sums the lanes
// give in that order once every row has been added.
#pragma once

#include <cstdint>
#include <memory>

#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/dtype.hpp>

namespace tensorjit::detail {

class ColumnLanes {
 public:
  // Lanes for `rows` rows of `columns` columns of `dtype` (f32 or f64), each lane that a row goes
  // to holding the neutral value -0.0.
  ColumnLanes(DType dtype, std::int64_t rows, std::int64_t columns);

  void* data() const { return buffer_->data(); }
  // V of the strict order: rows r and r + V go to the same lane.
  std::int64_t lane_count() const { return lane_count_; }

  // Writes the `columns` sums to `out`: per block the fixed tree over its lanes, the blocks' partials
  // left to right; 0 without rows. The bits of the interpreter's reduction over the rows.
  void sum_into(void* out) const;

 private:
  template <typename T> void fill_neutral();
  template <typename T> void sum_as(T* out) const;
  // Lanes of block b that rows go to: V, or fewer in a last block of fewer than V rows.
  std::int64_t lanes_used(std::int64_t block) const;

  DType dtype_;
  std::int64_t rows_, columns_, lane_count_, blocks_;
  std::shared_ptr<ir::Buffer> buffer_;  // [blocks, V, columns]
};

}  // namespace tensorjit::detail
