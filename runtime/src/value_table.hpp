// The materialised values of a running plan, and where its steps dump their kernels. Internal to
// runtime/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/node_map.hpp>

namespace tensorjit::detail {

// The materialised values of a running plan, by node of the plan's graph.
class ValueTable {
 public:
  // Inputs whose buffer is `slot` read `buffer` instead (a cached plan's inputs are slots).
  void bind(const ir::Buffer* slot, std::shared_ptr<ir::Buffer> buffer) { bindings_[slot] = std::move(buffer); }
  void put(const ir::Node* node, ir::Value value) { values_[node] = std::move(value); }
  void drop(const ir::Node* node) { values_.erase(node); }
  bool has(const ir::Node* node) const { return values_.contains(node); }
  // The value a step put for `node` (InternalError when none).
  const ir::Value& at(const ir::Node* node) const;
  // The value of any node that needs no computation of its own here: an input, a constant (one
  // element with zero strides), a materialised node, or a view chain over one of these; an iota
  // no step wrote is its layout over no memory, at codegen::kIotaAddress (its readers' kernels
  // compute it: loop_kernel.hpp, "Iota leaves").
  ir::Value resolve(const ir::NodePtr& node) const;
  // An iota that no step wrote: a kernel reading it computes it, nothing else may read it.
  bool computed_by_readers(const ir::Node& node) const { return node.op() == ir::Op::iota && !has(&node); }
  // The leaf a kernel reads for `read`, whose value is resolve(read): the iota itself when its
  // readers compute it, else an `input` over the value's memory and layout.
  ir::NodePtr kernel_leaf(const ir::NodePtr& read, const ir::Value& value) const;
  // The address of the first element of resolve(node)'s layout; for an input or a materialised
  // node without copying its layout (a launch's hot path).
  const void* first_element(const ir::NodePtr& node) const;

 private:
  // Address maps: a plan of a few steps keeps its values without allocating.
  ir::NodeMap<ir::Value> values_;
  ir::AddressMap<ir::Buffer, std::shared_ptr<ir::Buffer>> bindings_;
};

// The address of the element at `value`'s layout offset.
inline const char* element_pointer(const ir::Value& value) {
  return static_cast<const char*>(value.buffer->data()) +
         value.layout.offset * static_cast<std::int64_t>(itemsize(value.dtype));
}

// Where a step writes its kernel dumps; empty when not dumping.
struct StepDump {
  std::filesystem::path folder;
  std::string kernel_name;
};

}  // namespace tensorjit::detail
