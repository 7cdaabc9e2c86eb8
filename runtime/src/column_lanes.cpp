#include "runtime/src/column_lanes.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/reduction_order.hpp>

namespace tensorjit::detail {

ColumnLanes::ColumnLanes(DType dtype, std::int64_t rows, std::int64_t columns)
    : dtype_(dtype),
      rows_(rows),
      columns_(columns),
      lane_count_(ir::reduction_lanes(itemsize(dtype))),
      blocks_((rows + ir::kReductionBlock - 1) / ir::kReductionBlock) {
  TJ_INTERNAL_CHECK(dtype == DType::f32 || dtype == DType::f64) << "column lanes: " << dtype_name(dtype);
  buffer_ = ir::Buffer::allocate_uninitialized(
      static_cast<std::size_t>(std::max<std::int64_t>(blocks_ * lane_count_ * columns, 1)) * itemsize(dtype));
  if (dtype == DType::f32)
    fill_neutral<float>();
  else
    fill_neutral<double>();
}

std::int64_t ColumnLanes::lanes_used(std::int64_t block) const {
  return std::min(lane_count_, rows_ - block * ir::kReductionBlock);
}

template <typename T> void ColumnLanes::fill_neutral() {
  T* lanes = static_cast<T*>(buffer_->data());
  for (std::int64_t block = 0; block < blocks_; ++block)
    std::fill_n(lanes + block * lane_count_ * columns_, lanes_used(block) * columns_, T(-0.0));
}

void ColumnLanes::sum_into(void* out) const {
  if (dtype_ == DType::f32)
    sum_as(static_cast<float*>(out));
  else
    sum_as(static_cast<double*>(out));
}

// Lanes a block's rows never reached hold the neutral value, and ⊕ neutral is exact, so the tree
// skips them: the same bits as combining them.
template <typename T> void ColumnLanes::sum_as(T* out) const {
  T* lanes = static_cast<T*>(buffer_->data());
  std::fill_n(out, columns_, rows_ == 0 ? T(0) : T(-0.0));
  for (std::int64_t block = 0; block < blocks_; ++block) {
    T* first = lanes + block * lane_count_ * columns_;
    const std::int64_t used = lanes_used(block);
    for (std::int64_t width = lane_count_ / 2; width >= 1; width /= 2)
      for (std::int64_t l = 0; l < width && l + width < used; ++l) {
        T* low = first + l * columns_;
        const T* high = first + (l + width) * columns_;
        for (std::int64_t c = 0; c < columns_; ++c) low[c] = low[c] + high[c];
      }
    for (std::int64_t c = 0; c < columns_; ++c) out[c] = out[c] + first[c];
  }
}

}  // namespace tensorjit::detail
