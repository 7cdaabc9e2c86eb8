// Shapes, strides and layouts, and the checked arithmetic on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tensorjit/shape.hpp>

namespace tensorjit::ir {

using Shape = tensorjit::Shape;
using Strides = tensorjit::Shape;  // in elements, may be negative or zero

inline constexpr int kMaxRank = 8;

// "[2, 3]" — used in every error message and in the text IR.
std::string shape_str(const Shape& shape);

// Product of the extents; throws Error naming `op` when it overflows int64.
std::int64_t checked_numel(const Shape& shape, std::string_view op);

// Row-major strides of a contiguous tensor of `shape`.
Strides contiguous_strides(const Shape& shape);

// Where a tensor's elements live in its buffer: element (i0, i1, ...) is at
// offset + sum(i_k * strides[k]), in elements of the dtype.
struct Layout {
  Shape shape;
  Strides strides;
  std::int64_t offset = 0;

  static Layout contiguous(Shape shape);
  bool is_contiguous() const;
  // The lowest and one past the highest element index the layout touches ({offset, offset} when
  // empty); a buffer must span them for every access to be in bounds.
  std::pair<std::int64_t, std::int64_t> extent() const;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// numpy's broadcast of two shapes, or nothing when they are incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// `axis` in [-rank, rank) made non-negative, or nothing when out of range.
std::optional<int> normalize_axis(std::int64_t axis, int rank);

}  // namespace tensorjit::ir
