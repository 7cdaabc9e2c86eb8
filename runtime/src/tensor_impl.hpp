// What a Tensor handle points at: the node that defines its value. After eval the node is an input
// node over the materialised buffer, so the handle no longer keeps the graph that produced it.
#pragma once

#include <mutex>
#include <utility>

#include <tensorjit/ir/node.hpp>
#include <tensorjit/tensor.hpp>

namespace tensorjit::detail {

struct TensorImpl {
  explicit TensorImpl(ir::NodePtr node) : shape(node->shape()), dtype(node->dtype()), node_(std::move(node)) {
    node_->add_holder();
  }
  ~TensorImpl() { node_->remove_holder(); }
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  // Fixed for the handle's life: an eval changes the node, never the shape or dtype.
  const Shape shape;
  const DType dtype;

  ir::NodePtr node() const {
    std::lock_guard lock(mutex_);
    return node_;
  }
  void replace(ir::NodePtr node) {
    node->add_holder();
    ir::NodePtr old;
    {
      std::lock_guard lock(mutex_);
      old = std::exchange(node_, std::move(node));
    }
    old->remove_holder();
  }

 private:
  mutable std::mutex mutex_;
  ir::NodePtr node_;
};

// Throws Error naming `op` for an empty (default-constructed) handle.
void check_defined(const Tensor& tensor, std::string_view op);
// The node of a tensor; throws Error naming `op` for an empty handle.
ir::NodePtr node_of(const Tensor& tensor, std::string_view op);
Tensor wrap(ir::NodePtr node);

// from_blob, with the buffer made by Buffer::wrap_constant when `constant` (the file loaders: a
// read-only mapping or a private copy, which nothing writes while tensors view it).
Tensor tensor_over(void* data, const Shape& shape, const std::vector<std::int64_t>& strides, DType dtype,
                   std::function<void()> owner, bool constant);

// The evaluated value of a tensor (evaluates it first when needed); errors name `op`.
ir::Value value_of(const Tensor& tensor, std::string_view op);

// "f32[2, 3]" for error messages.
std::string describe(const Tensor& tensor);

// Throws Error naming `op` when `dtype` is none of the enum's named values: a DType is a uint8_t,
// so any byte converts to one, and an unnamed one has no item size to divide by.
void check_dtype(DType dtype, std::string_view op);

// `axis` in [-rank, rank) made non-negative; throws Error naming `op` and the shape otherwise.
int checked_axis(std::int64_t axis, int rank, std::string_view op, const Shape& shape);
// Sorted unique non-negative axes; empty means every axis.
std::vector<int> checked_axes(const std::vector<std::int64_t>& axes, int rank, std::string_view op,
                              const Shape& shape);

}  // namespace tensorjit::detail
