#include <tensorjit/ir/indexing.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::ir {
namespace {

constexpr IndexOrigin kOrigins[] = {IndexOrigin::take, IndexOrigin::take_along_axis, IndexOrigin::one_hot,
                                    IndexOrigin::index_add, IndexOrigin::scatter_add};

}  // namespace

std::optional<IndexOrigin> index_origin_from_name(std::string_view name) {
  for (IndexOrigin origin : kOrigins)
    if (index_origin_name(origin) == name) return origin;
  return std::nullopt;
}

std::string_view index_origin_name(IndexOrigin origin) {
  switch (origin) {
    case IndexOrigin::take: return "take";
    case IndexOrigin::take_along_axis: return "take_along_axis";
    case IndexOrigin::one_hot: return "one_hot";
    case IndexOrigin::index_add: return "index_add";
    case IndexOrigin::scatter_add: return "scatter_add";
  }
  return "?";
}

void throw_index_out_of_range(const Node& node, std::int64_t index, std::int64_t position) {
  TJ_INTERNAL_CHECK(is_indexing(node.op())) << op_name(node.op()) << " reads no indices";
  const auto& attr = node.attr<IndexAttr>();
  const Shape& shape = node.input(1)->shape();
  Shape at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = position % shape[d];
    position /= shape[d];
  }
  // take and index_add were passed the indices whose axes end at `axis`; the other axes of the
  // node's indices are broadcast (docs/indexing.md).
  if (attr.index_axes > 0) at = Shape(at.begin() + attr.axis + 1 - attr.index_axes, at.begin() + attr.axis + 1);
  const int axis = attr.index_axes > 0 ? attr.axis + 1 - attr.index_axes : attr.axis;
  const std::int64_t extent = node.input(0)->shape()[static_cast<std::size_t>(attr.axis)];
  TJ_FAIL() << index_origin_name(attr.origin) << ": index " << index << " at position ["
            << fmt::format("{}", fmt::join(at, ", ")) << "] of the indices is outside [" << -extent << ", "
            << extent << "), the " << extent << " elements of the axis it indexes (axis " << axis
            << "); pass indices in that range (negative ones count from the end)";
}

}  // namespace tensorjit::ir
