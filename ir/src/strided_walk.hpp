// The interpreter's one index iterator: visits every index of a shape in row-major order (the last
// axis fastest) and keeps, for each of N strided operands, the element offset of that index.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tensorjit/ir/shape.hpp>

namespace tensorjit::ir {

// An operand of a walk: element offset of index (i0, i1, ...) is base + sum(i_k * strides[k]).
// `strides` has one entry per axis of the walked shape.
struct StridedOperand {
  std::span<const std::int64_t> strides;
  std::int64_t base = 0;
};

// Calls visit(offsets) once per index of `shape` in row-major order, offsets[n] being the element
// offset of that index in operands[n]. Visits nothing when an extent is 0, once for rank 0.
template <std::size_t N, typename Visit>
void walk_strided(const Shape& shape, const std::array<StridedOperand, N>& operands,
                  Visit&& visit) {
  for (std::int64_t extent : shape) {
    if (extent == 0) return;
  }
  const int rank = static_cast<int>(shape.size());
  std::vector<std::int64_t> index(shape.size(), 0);
  std::array<std::int64_t, N> offsets;
  for (std::size_t n = 0; n < N; ++n) offsets[n] = operands[n].base;
  while (true) {
    visit(offsets);
    // Advance like an odometer: bump the last axis; an axis that runs off its end resets to 0
    // and carries into the axis before it.
    int axis = rank - 1;
    for (; axis >= 0; --axis) {
      for (std::size_t n = 0; n < N; ++n) offsets[n] += operands[n].strides[axis];
      if (++index[axis] < shape[axis]) break;
      for (std::size_t n = 0; n < N; ++n) offsets[n] -= operands[n].strides[axis] * shape[axis];
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

}  // namespace tensorjit::ir
