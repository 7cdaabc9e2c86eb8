// concat, stack, split and pad (docs/indexing.md, "Joining"). One IR op, concat, does the joining:
// stack is a concat of size-1 views, pad a concat with constants on each side of each padded axis,
// split a list of slices (views, nothing copied). A concat's plan writes each part straight into
// its place of the result (runtime/src/concat_step.cpp).
#include <tensorjit/functions.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::checked_axis;
using detail::describe;
using detail::node_of;
using detail::wrap;

namespace {

std::string describe_all(const std::vector<Tensor>& tensors) {
  std::vector<std::string> parts;
  for (const auto& t : tensors) parts.push_back(describe(t));
  return fmt::format("({})", fmt::join(parts, ", "));
}

// The parts' nodes, cast to the dtype they promote to (torch.cat and numpy.concatenate promote).
std::vector<ir::NodePtr> promoted_nodes(const std::vector<Tensor>& tensors, std::string_view name) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& t : tensors) nodes.push_back(node_of(t, name));
  DType dtype = nodes.front()->dtype();
  for (const auto& node : nodes) dtype = promote_types(dtype, node->dtype());
  for (auto& node : nodes)
    if (node->dtype() != dtype) node = ir::make_cast(node, dtype);
  return nodes;
}

// The joined result's element count and bytes fit in int64, checked under the function the user
// called: the constants and concats a pad or a stack is built on would check them under their own
// names (Node::make's check_result_size).
void check_result_size(std::string_view op, DType dtype, const ir::Shape& shape, const std::string& operands) {
  std::int64_t numel = 1;
  bool elements_fit = true;
  for (auto extent : shape) elements_fit = elements_fit && !__builtin_mul_overflow(numel, extent, &numel);
  const auto size = static_cast<std::int64_t>(itemsize(dtype));
  std::int64_t bytes = 0;
  if (elements_fit && !__builtin_mul_overflow(numel, size, &bytes)) return;
  TJ_FAIL() << op << ": the result " << dtype_name(dtype) << ir::shape_str(shape) << " of " << operands
            << (elements_fit ? fmt::format(" is too large to allocate: {} elements of {} bytes are more than "
                                           "2^63 - 1 bytes; make the shapes smaller",
                                           numel, size)
                             : " has more elements than fit in int64 (at most 2^63 - 1); make the shapes smaller");
}

}  // namespace

Tensor concat(const std::vector<Tensor>& tensors, std::int64_t axis) {
  TJ_CHECK(!tensors.empty()) << "concat: needs at least one tensor";
  std::vector<ir::NodePtr> nodes = promoted_nodes(tensors, "concat");
  const ir::Shape& first = nodes.front()->shape();
  for (std::size_t i = 0; i < nodes.size(); ++i)
    TJ_CHECK(nodes[i]->rank() > 0) << "concat: tensor " << i << " of " << describe_all(tensors)
                                   << " is 0-d and has no axis to join along; use tj::stack, or reshape it to [1]";
  const int ax = checked_axis(axis, static_cast<int>(first.size()), "concat", first);
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    const ir::Shape& shape = nodes[i]->shape();
    bool matches = shape.size() == first.size();
    for (std::size_t d = 0; matches && d < first.size(); ++d)
      matches = static_cast<int>(d) == ax || shape[d] == first[d];
    TJ_CHECK(matches) << "concat: tensor " << i << " of " << describe_all(tensors)
                      << " must have the rank and the extents of tensor 0 but along axis " << axis;
  }
  ir::Shape joined = first;
  std::int64_t& extent = joined[static_cast<std::size_t>(ax)];
  for (std::size_t i = 1; i < nodes.size(); ++i)
    TJ_CHECK(!__builtin_add_overflow(extent, nodes[i]->shape()[static_cast<std::size_t>(ax)], &extent))
        << "concat: the extents along axis " << axis << " of " << describe_all(tensors) << " add up to more than 2^63 - 1";
  check_result_size("concat", nodes.front()->dtype(), joined, describe_all(tensors));
  return wrap(ir::make_concat(std::move(nodes), ax));
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t axis) {
  TJ_CHECK(!tensors.empty()) << "stack: needs at least one tensor";
  std::vector<ir::NodePtr> nodes = promoted_nodes(tensors, "stack");
  const ir::Shape& first = nodes.front()->shape();
  for (std::size_t i = 1; i < nodes.size(); ++i)
    TJ_CHECK(nodes[i]->shape() == first) << "stack: tensor " << i << " of " << describe_all(tensors)
                                         << " must have the shape of tensor 0";
  const int ax = checked_axis(axis, static_cast<int>(first.size()) + 1, "stack", first);
  ir::Shape grown = first;
  grown.insert(grown.begin() + ax, static_cast<std::int64_t>(nodes.size()));
  check_result_size("stack", nodes.front()->dtype(), grown, describe_all(tensors));
  grown[static_cast<std::size_t>(ax)] = 1;
  for (auto& node : nodes) node = ir::make_reshape(node, grown);
  return wrap(ir::make_concat(std::move(nodes), ax));
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis) {
  ir::NodePtr node = node_of(x, "split");
  TJ_CHECK(node->rank() > 0) << "split: " << describe(x) << " is 0-d and has no axis to split";
  const int ax = checked_axis(axis, node->rank(), "split", node->shape());
  const std::int64_t extent = node->shape()[static_cast<std::size_t>(ax)];
  std::int64_t total = 0;
  for (std::int64_t size : sizes) {
    TJ_CHECK(size >= 0) << "split: size " << size << " in [" << fmt::format("{}", fmt::join(sizes, ", "))
                        << "] is negative";
    TJ_CHECK(!__builtin_add_overflow(total, size, &total)) << "split: the sizes overflow int64";
  }
  TJ_CHECK(total == extent) << "split: sizes [" << fmt::format("{}", fmt::join(sizes, ", ")) << "] add up to "
                            << total << ", but axis " << axis << " of " << describe(x) << " has " << extent
                            << " elements; give sizes that add up to it";
  std::vector<Tensor> parts;
  std::int64_t start = 0;
  for (std::int64_t size : sizes) {
    parts.push_back(wrap(ir::make_slice(node, ax, size == 0 ? 0 : start, size)));
    start += size;
  }
  return parts;
}

Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value) {
  ir::NodePtr node = node_of(x, "pad");
  const auto rank = static_cast<std::size_t>(node->rank());
  TJ_CHECK(widths.size() == rank || (widths.size() == 1 && rank > 0))
      << "pad: " << widths.size() << " (before, after) pairs for " << describe(x)
      << "; give one pair per axis, or one pair for every axis";
  for (const auto& [before, after] : widths)
    TJ_CHECK(before >= 0 && after >= 0) << "pad: the widths (" << before << ", " << after << ") of " << describe(x)
                                        << " must not be negative (numpy.pad); crop with slice instead";
  ir::Shape padded = node->shape();
  for (std::size_t d = 0; d < rank; ++d) {
    const auto [before, after] = widths.size() == 1 ? widths.front() : widths[d];
    TJ_CHECK(!__builtin_add_overflow(padded[d], before, &padded[d]) && !__builtin_add_overflow(padded[d], after, &padded[d]))
        << "pad: the widths (" << before << ", " << after << ") of axis " << d << " of " << describe(x)
        << " make it longer than 2^63 - 1 elements";
  }
  check_result_size("pad", node->dtype(), padded, describe(x));
  const ir::Scalar fill = ir::Scalar::of(node->dtype(), value);
  for (std::size_t d = 0; d < rank; ++d) {
    const auto [before, after] = widths.size() == 1 ? widths.front() : widths[d];
    if (before == 0 && after == 0) continue;
    std::vector<ir::NodePtr> parts;
    ir::Shape side = node->shape();
    if (before > 0) {
      side[d] = before;
      parts.push_back(ir::make_constant(node->dtype(), side, fill));
    }
    parts.push_back(node);
    if (after > 0) {
      side[d] = after;
      parts.push_back(ir::make_constant(node->dtype(), side, fill));
    }
    node = ir::make_concat(std::move(parts), static_cast<int>(d));
  }
  return wrap(std::move(node));
}

}  // namespace tensorjit
