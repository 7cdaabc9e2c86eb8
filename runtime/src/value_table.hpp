// The materialised values of a running plan, and where its steps dump their kernels. Internal to
// runtime/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <forward_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/node_map.hpp>

namespace tensorjit::detail {

// The materialised values of a running plan, by node of the plan's graph.
class ValueTable {
 public:
  // Inputs whose buffer is `slot` read `buffer` instead (a cached plan's inputs are slots).
  // `buffer` is not copied, and must outlive the table: an input node's, which the graph being run
  // holds (a copy per input would cost two atomic operations each eval).
  void bind(const ir::Buffer* slot, const std::shared_ptr<ir::Buffer>& buffer) { bindings_[slot] = &buffer; }
  // The same for a buffer made for this run (an argument constant's value), which the table keeps.
  void bind_owned(const ir::Buffer* slot, std::shared_ptr<ir::Buffer> buffer) {
    owned_.push_front(std::move(buffer));
    bind(slot, owned_.front());
  }
  void put(const ir::Node* node, ir::Value value) { values_[node] = std::move(value); }
  // The step that writes `node` writes it into `buffer` instead of a new one (Tensor::assign: the
  // executor has checked that nothing reads the buffer's old contents after that step, and that
  // the step reads them only element for element; `unread`: the plan does not read them at all).
  void donate(const ir::Node* node, std::shared_ptr<ir::Buffer> buffer, bool unread) {
    donated_.push_back({node, std::move(buffer), unread});
  }
  // A buffer of at least `bytes` for the contiguous output `node` of a loop or product step: the
  // buffer donated for it, else a new one. `only_unread`: a donated buffer whose old contents the
  // plan reads is not taken (a product's C, written by the GEMM before its epilogue reads).
  std::shared_ptr<ir::Buffer> output_buffer(const ir::Node* node, std::size_t bytes, bool only_unread = false);
  // The buffer donated for `node` (of at least `bytes`), or null.
  std::shared_ptr<ir::Buffer> take_donation(const ir::Node* node, std::size_t bytes);
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
  ir::AddressMap<ir::Buffer, const std::shared_ptr<ir::Buffer>*> bindings_;
  // bind_owned's buffers, at stable addresses. A copy of the table (concat_step's staged one)
  // still reads the original's: copies live shorter than the table they are made from.
  std::forward_list<std::shared_ptr<ir::Buffer>> owned_;
  struct Donated {
    const ir::Node* node;
    std::shared_ptr<ir::Buffer> buffer;
    bool unread;
  };
  std::vector<Donated> donated_;  // usually empty: no allocation
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
