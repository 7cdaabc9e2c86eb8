// The expression a step's kernel computes: the step's ops rebuilt over leaves. Every node the ops
// read without computing it (an input, a materialised value, a view of one) becomes a leaf that
// the caller chooses, typically an `input` node over the value's layout, which the kernel reads
// through its arguments; constants stay in the expression. Shared by every kind of step.
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <tensorjit/ir/node.hpp>

#include "runtime/src/value_table.hpp"

namespace tensorjit::detail {

class ExpressionRebuilder {
 public:
  // The leaf that stands for `read` in the kernel, or null when the kernel cannot read it that
  // way (rebuild then gives null). Called once per node read, in the order of first use.
  using LeafFor = std::function<ir::NodePtr(const ir::NodePtr& read)>;

  // `ops`: the nodes the expression computes; every other node is a leaf or a constant.
  ExpressionRebuilder(const std::vector<ir::NodePtr>& ops, LeafFor leaf_for);
  template <typename Iterator>
  ExpressionRebuilder(Iterator first, Iterator last, LeafFor leaf_for)
      : leaf_for_(std::move(leaf_for)) {
    for (; first != last; ++first) inside_.insert(first->get());
  }

  // The leaf that stands for `data`, operand 0 of `gather`, which the kernel reads from memory at
  // the gather's indices (loop_kernel.hpp, "Gathers"), or null when it cannot.
  using GatheredFor = std::function<ir::NodePtr(const ir::NodePtr& gather, const ir::NodePtr& data)>;
  // Without it (the default) an expression holding a gather rebuilds to null.
  void on_gather(GatheredFor gathered_for) { gathered_for_ = std::move(gathered_for); }

  // `node` rebuilt over the leaves (each op through Node::with_inputs), or null as above.
  ir::NodePtr rebuild(const ir::NodePtr& node);
  // Reads of `node` read `leaf` (a reduction's result, as its consumers see it).
  void alias(const ir::Node* node, ir::NodePtr leaf) { rebuilt_[node] = std::move(leaf); }

 private:
  std::unordered_set<const ir::Node*> inside_;
  LeafFor leaf_for_;
  GatheredFor gathered_for_;
  std::unordered_map<const ir::Node*, ir::NodePtr> rebuilt_;
};

// A step expression's leaves, as `input` nodes over their values (or an iota its kernel computes,
// ValueTable::kernel_leaf) in argument order: `binder(values)` is the LeafFor of an
// ExpressionRebuilder that records each.
struct BoundLeaves {
  std::vector<ir::NodePtr> leaves;   // the kernel's inputs
  std::vector<ir::NodePtr> sources;  // the nodes they stand for
  std::vector<ir::Value> arguments;  // their values

  ExpressionRebuilder::LeafFor binder(const ValueTable& values) {
    return [this, &values](const ir::NodePtr& read) {
      ir::Value value = values.resolve(read);
      leaves.push_back(values.kernel_leaf(read, value));
      sources.push_back(read);
      arguments.push_back(std::move(value));
      return leaves.back();
    };
  }
};

}  // namespace tensorjit::detail
