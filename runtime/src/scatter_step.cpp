// A scatter step lays its operands out as rows for kernels::scatter_add_rows: the indices' last
// axis is one row when the index is the same along it (index_add: one index per row of values) and
// it is not the indexed axis; otherwise each element is a row of one. Rows are numbered in the
// row-major order of the indices, so the kernel's order (each destination receives its rows in
// increasing number) is the interpreter's, at any thread count.
#include "runtime/src/scatter_step.hpp"

#include <algorithm>
#include <cstring>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/indexing.hpp>
#include <tensorjit/kernels/scatter_add.hpp>

#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

kernels::ScatterElement scatter_element(DType dtype) {
  switch (dtype) {
    case DType::f32: return kernels::ScatterElement::f32;
    case DType::f64: return kernels::ScatterElement::f64;
    case DType::i32: return kernels::ScatterElement::i32;
    default: break;
  }
  TJ_INTERNAL_CHECK(dtype == DType::i64) << "scatter step: " << dtype_name(dtype) << " values";
  return kernels::ScatterElement::i64;
}

// `count` copies of the `size` bytes at `element` into `out`: a memset when they are all zero (a
// zero base, the gradient's), else the first copy doubled by memcpy until `out` is full. One copy
// per element, a memcpy of `size` bytes each, filled the 47 MB of W14's index_add base at about
// 2 ns an element (77% of its time).
void fill(char* out, const char* element, std::int64_t size, std::int64_t count) {
  const auto total = static_cast<std::size_t>(size * count);
  if (std::all_of(element, element + size, [](char byte) { return byte == 0; })) {
    std::memset(out, 0, total);
    return;
  }
  std::memcpy(out, element, static_cast<std::size_t>(size));
  for (std::size_t filled = static_cast<std::size_t>(size); filled < total;) {
    const std::size_t copied = std::min(filled, total - filled);
    std::memcpy(out + filled, out, copied);
    filled += copied;
  }
}

// `value`'s elements in row-major order into `out` (contiguous, value.layout.shape): one fill when
// it is the same value everywhere (a zero base, the gradient's), one memcpy when contiguous.
void copy_contiguous(const ir::Value& value, void* out) {
  const ir::Shape& shape = value.layout.shape;
  const auto size = static_cast<std::int64_t>(itemsize(value.dtype));
  std::int64_t numel = 1;
  for (auto e : shape) numel *= e;
  if (numel == 0) return;
  const char* from = element_pointer(value);
  char* to = static_cast<char*>(out);
  const auto& strides = value.layout.strides;
  if (std::all_of(strides.begin(), strides.end(), [](std::int64_t s) { return s == 0; })) {
    fill(to, from, size, numel);
    return;
  }
  if (strides == ir::contiguous_strides(shape)) {
    std::memcpy(to, from, static_cast<std::size_t>(numel * size));
    return;
  }
  std::vector<std::int64_t> index(shape.size(), 0);
  std::int64_t offset = 0;
  for (std::int64_t i = 0; i < numel; ++i) {
    std::memcpy(to + i * size, from + offset * size, static_cast<std::size_t>(size));
    for (std::size_t d = shape.size(); d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

struct PreparedScatter final : PreparedStep {
  void launch(const ir::Step& step, ValueTable& values, const StepDump&) const override {
    const ir::NodePtr& node = step.nodes.front();
    const auto axis = static_cast<std::size_t>(node->attr<ir::IndexAttr>().axis);
    const ir::Value base = values.resolve(node->input(0));
    const ir::Value indices = values.resolve(node->input(1));
    const ir::Value added = values.resolve(node->input(2));
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(node->numel()) * itemsize(node->dtype()));
    copy_contiguous(base, buffer->data());
    const ir::Shape& shape = indices.layout.shape;
    const ir::Strides out_strides = ir::contiguous_strides(node->shape());

    std::int64_t positions = 1;
    for (auto e : shape) positions *= e;
    const std::size_t rank = shape.size();
    const bool by_rows = rank > 0 && rank - 1 != axis && indices.layout.strides[rank - 1] == 0;
    const std::int64_t row_length = by_rows ? shape[rank - 1] : 1;
    const std::size_t walked = by_rows ? rank - 1 : rank;
    const std::int64_t rows = row_length == 0 ? 0 : positions / row_length;
    std::vector<std::int64_t> value_offsets(static_cast<std::size_t>(rows)), index_offsets(value_offsets.size()),
        destinations(value_offsets.size());
    std::vector<std::int64_t> at(walked, 0);
    std::int64_t value_offset = 0, index_offset = 0, destination = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      value_offsets[r] = value_offset;
      index_offsets[r] = index_offset;
      destinations[r] = destination;
      for (std::size_t d = walked; d-- > 0;) {
        const std::int64_t out_stride = d == axis ? 0 : out_strides[d];
        value_offset += added.layout.strides[d];
        index_offset += indices.layout.strides[d];
        destination += out_stride;
        if (++at[d] < shape[d]) break;
        value_offset -= added.layout.strides[d] * shape[d];
        index_offset -= indices.layout.strides[d] * shape[d];
        destination -= out_stride * shape[d];
        at[d] = 0;
      }
    }
    kernels::ScatterAddArgs args;
    args.element = scatter_element(node->dtype());
    args.rows = rows;
    args.row_length = std::max<std::int64_t>(row_length, 1);
    args.values = element_pointer(added);
    args.value_offsets = value_offsets.data();
    args.value_stride = by_rows ? added.layout.strides[rank - 1] : 1;
    args.indices = element_pointer(indices);
    args.indices_are_i64 = indices.dtype == DType::i64;
    args.index_offsets = index_offsets.data();
    args.destination_offsets = destinations.data();
    args.extent = node->shape()[axis];
    args.axis_stride = out_strides[axis];
    args.out = buffer->data();
    args.out_elements = node->numel();
    args.parallel_for = pool_parallel_for();
    const kernels::ScatterFault fault = kernels::scatter_add_rows(args);
    if (fault.row >= 0) ir::throw_index_out_of_range(*node, fault.index, fault.row * row_length);
    values.put(node.get(), ir::Value{std::move(buffer), node->dtype(), ir::Layout::contiguous(node->shape())});
  }
};

}  // namespace

std::shared_ptr<const PreparedStep> prepare_scatter_step(const ir::Step& step, const ValueTable&, const StepDump&) {
  TJ_INTERNAL_CHECK(step.nodes.size() == 1 && step.nodes.front()->op() == ir::Op::scatter_add)
      << "scatter step: " << step.nodes.size() << " nodes; a step holds one scatter_add";
  return std::make_shared<PreparedScatter>();
}

}  // namespace tensorjit::detail
