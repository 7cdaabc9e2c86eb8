// Reading values: each accessor evaluates the tensor first, then reads through its layout.
#include <tensorjit/tensor.hpp>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

namespace detail {

ir::Value value_of(const Tensor& tensor, std::string_view op) {
  ir::NodePtr node = node_of(tensor, op);
  if (node->op() != ir::Op::input || !node->attr<ir::InputAttr>().buffer) {
    evaluate(std::span(&tensor, 1));
    node = tensor.impl()->node();
  }
  const auto& input = node->attr<ir::InputAttr>();
  return ir::Value{input.buffer, input.dtype, input.layout};
}

}  // namespace detail

namespace {

// The element at a flat element index of the buffer, converted to T as cast does.
template <typename T> T read_as(const ir::Value& value, std::int64_t element) {
  return visit_dtype(value.dtype, [&](auto tag) -> T {
    using S = typename decltype(tag)::type;
    S stored = static_cast<const S*>(value.buffer->data())[element];
    return ir::StoredOp<ir::Op::cast>::apply_cast<T>(stored);
  });
}

template <typename F> void for_each_index(const ir::Layout& layout, F&& visit) {
  const int rank = static_cast<int>(layout.shape.size());
  for (auto e : layout.shape)
    if (e == 0) return;
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t element = layout.offset;
  while (true) {
    visit(element);
    int d = rank - 1;
    for (; d >= 0; --d) {
      element += layout.strides[d];
      if (++index[d] < layout.shape[d]) break;
      element -= layout.strides[d] * layout.shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

Shape Tensor::strides() const { return detail::value_of(*this, "strides").layout.strides; }
std::int64_t Tensor::offset() const { return detail::value_of(*this, "offset").layout.offset; }

const void* Tensor::data() const {
  ir::Value value = detail::value_of(*this, "data");
  return static_cast<const char*>(value.buffer->data()) +
         value.layout.offset * static_cast<std::int64_t>(itemsize(value.dtype));
}

template <typename T> T Tensor::item() const {
  TJ_CHECK(detail::node_of(*this, "item")->numel() == 1)
      << "item: needs a tensor of one element, got " << detail::describe(*this);
  ir::Value value = detail::value_of(*this, "item");
  return read_as<T>(value, value.layout.offset);
}

template <typename T> std::vector<T> Tensor::to_vector() const {
  ir::Value value = detail::value_of(*this, "to_vector");
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(size()));
  for_each_index(value.layout, [&](std::int64_t element) { out.push_back(read_as<T>(value, element)); });
  return out;
}

template <typename T> T Tensor::at(const std::vector<std::int64_t>& index) const {
  const Shape s = detail::node_of(*this, "at")->shape();
  TJ_CHECK(index.size() == s.size()) << "at: " << index.size() << " indices for "
                                     << detail::describe(*this);
  ir::Value value = detail::value_of(*this, "at");
  std::int64_t element = value.layout.offset;
  for (std::size_t d = 0; d < s.size(); ++d) {
    std::int64_t i = index[d] < 0 ? index[d] + s[d] : index[d];
    TJ_CHECK(i >= 0 && i < s[d]) << "at: index " << index[d] << " is out of range for axis " << d
                                 << " of " << detail::describe(*this);
    element += i * value.layout.strides[d];
  }
  return read_as<T>(value, element);
}

#define TENSORJIT_INSTANTIATE_READS(T)                                 \
  template T Tensor::item<T>() const;                                  \
  template std::vector<T> Tensor::to_vector<T>() const;                \
  template T Tensor::at<T>(const std::vector<std::int64_t>&) const;
TENSORJIT_INSTANTIATE_READS(float)
TENSORJIT_INSTANTIATE_READS(double)
TENSORJIT_INSTANTIATE_READS(std::int32_t)
TENSORJIT_INSTANTIATE_READS(std::int64_t)
TENSORJIT_INSTANTIATE_READS(bool)
TENSORJIT_INSTANTIATE_READS(float16_t)
TENSORJIT_INSTANTIATE_READS(bfloat16_t)
#undef TENSORJIT_INSTANTIATE_READS

void eval(const std::vector<Tensor>& tensors) { detail::evaluate(tensors); }

}  // namespace tensorjit
