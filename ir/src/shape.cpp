#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/shape.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tensorjit::ir {

std::string shape_str(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::int64_t checked_numel(const Shape& shape, std::string_view op) {
  std::int64_t n = 1;
  for (auto extent : shape) {
    TJ_CHECK(extent >= 0) << op << ": negative extent in shape " << shape_str(shape);
    TJ_CHECK(!__builtin_mul_overflow(n, extent, &n))
        << op << ": shape " << shape_str(shape) << " has more elements than fit in int64";
  }
  return n;
}

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<std::int64_t>(shape[i], 1);
  }
  return strides;
}

Layout Layout::contiguous(Shape shape) {
  Strides strides = contiguous_strides(shape);
  return Layout{std::move(shape), std::move(strides), 0};
}

bool Layout::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::pair<std::int64_t, std::int64_t> Layout::extent() const {
  for (auto e : shape)
    if (e == 0) return {offset, offset};
  std::int64_t low = offset, high = offset;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::int64_t reach = 0;
    TJ_CHECK(!__builtin_mul_overflow(shape[i] - 1, strides[i], &reach))
        << "layout: strides " << shape_str(strides) << " over shape " << shape_str(shape)
        << " overflow int64";
    TJ_CHECK(!__builtin_add_overflow(reach < 0 ? low : high, reach, reach < 0 ? &low : &high))
        << "layout: strides " << shape_str(strides) << " over shape " << shape_str(shape)
        << " overflow int64";
  }
  return {low, high + 1};
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t ea = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t eb = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (ea != eb && ea != 1 && eb != 1) return std::nullopt;
    out[i] = ea == 1 ? eb : ea;
  }
  return out;
}

std::optional<int> normalize_axis(std::int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace tensorjit::ir
