#include "runtime/src/value_table.hpp"

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/view.hpp>

namespace tensorjit::detail {
namespace {

// The address an iota leaf's offsets count from: a buffer of no bytes, never read.
const std::shared_ptr<ir::Buffer>& iota_buffer() {
  static const auto buffer = ir::Buffer::wrap(reinterpret_cast<void*>(codegen::kIotaAddress), 0, {});
  return buffer;
}

}  // namespace

ir::NodePtr ValueTable::kernel_leaf(const ir::NodePtr& read, const ir::Value& value) const {
  if (computed_by_readers(*read)) return read;
  return ir::make_input(value.buffer, value.dtype, value.layout);
}

std::shared_ptr<ir::Buffer> ValueTable::output_buffer(const ir::Node* node, std::size_t bytes, bool only_unread) {
  for (auto& d : donated_)
    if (d.node == node && d.buffer && d.buffer->bytes() >= bytes && (d.unread || !only_unread))
      return std::exchange(d.buffer, nullptr);
  return ir::Buffer::allocate_uninitialized(bytes);
}

std::shared_ptr<ir::Buffer> ValueTable::take_donation(const ir::Node* node, std::size_t bytes) {
  for (auto& d : donated_)
    if (d.node == node && d.buffer && d.buffer->bytes() >= bytes) return std::exchange(d.buffer, nullptr);
  return nullptr;
}

const ir::Value& ValueTable::at(const ir::Node* node) const {
  const ir::Value* value = values_.find(node);
  TJ_INTERNAL_CHECK(value) << "plan: " << ir::op_name(node->op()) << " " << ir::shape_str(node->shape())
                                << " is read before any step computed it";
  return *value;
}

ir::Value ValueTable::resolve(const ir::NodePtr& node) const {
  if (const ir::Value* value = values_.find(node.get())) return *value;
  switch (node->op()) {
    case ir::Op::input: {
      const auto& in = node->attr<ir::InputAttr>();
      TJ_INTERNAL_CHECK(in.buffer) << "plan: input " << ir::shape_str(in.layout.shape) << " has no buffer";
      if (const auto* bound = bindings_.find(in.buffer.get())) return ir::Value{**bound, in.dtype, in.layout};
      return ir::Value{in.buffer, in.dtype, in.layout};
    }
    case ir::Op::constant: {
      const auto& c = node->attr<ir::ConstantAttr>();
      auto buffer = ir::Buffer::allocate(itemsize(c.dtype));
      visit_dtype(c.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        *static_cast<T*>(buffer->data()) =
            is_floating(c.dtype) ? static_cast<T>(c.value.f) : static_cast<T>(c.value.i);
      });
      return ir::Value{std::move(buffer), c.dtype, ir::Layout{c.shape, ir::Strides(c.shape.size(), 0), 0}};
    }
    case ir::Op::iota: {
      const auto& iota = node->attr<ir::IotaAttr>();
      return ir::Value{iota_buffer(), iota.dtype, iota.layout};
    }
    default: break;
  }
  TJ_INTERNAL_CHECK(ir::is_movement(node->op()))
      << "plan: " << ir::op_name(node->op()) << " " << ir::shape_str(node->shape())
      << " is read before any step computed it";
  ir::Value base = resolve(node->input(0));
  auto layout = ir::apply_view(base.layout, *node);
  TJ_INTERNAL_CHECK(layout) << "plan: a " << ir::op_name(node->op()) << " over a materialised value "
                            << "cannot be expressed by strides";
  return ir::Value{base.buffer, base.dtype, std::move(*layout)};
}

const void* ValueTable::first_element(const ir::NodePtr& node) const {
  auto address = [](const std::shared_ptr<ir::Buffer>& buffer, DType dtype, std::int64_t offset) -> const void* {
    return static_cast<const char*>(buffer->data()) + offset * static_cast<std::int64_t>(itemsize(dtype));
  };
  if (const ir::Value* value = values_.find(node.get()))
    return address(value->buffer, value->dtype, value->layout.offset);
  if (node->op() == ir::Op::input) {
    const auto& in = node->attr<ir::InputAttr>();
    if (const auto* bound = bindings_.find(in.buffer.get())) return address(**bound, in.dtype, in.layout.offset);
  }
  ir::Value value = resolve(node);
  return address(value.buffer, value.dtype, value.layout.offset);
}

}  // namespace tensorjit::detail
