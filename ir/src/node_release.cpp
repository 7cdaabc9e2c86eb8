// Node::~Node: the inputs a dying node held are released by a loop instead of by recursion.
//
// With the implicit destructor, the last reference to a chain of N nodes destroys node N, whose
// input vector destroys node N-1, and so on: N nested frames, a stack overflow from about 20 000
// nodes in a sanitizer build. Here the first destructor on a thread becomes the drain: every
// destructor moves its inputs to a per-thread list, and only the drain pops and drops them, one
// at a time, so the depth stays constant whatever the graph.
#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

Node::~Node() {
  thread_local std::vector<NodePtr> pending;
  thread_local bool draining = false;
  // A dying node is out of reach (no holder, no consumer), so it claims none of its inputs.
  for (auto& input : inputs_) {
    input->consumers_.fetch_sub(1, std::memory_order_relaxed);
    pending.push_back(std::move(input));
  }
  if (draining) return;
  draining = true;
  while (!pending.empty()) {
    NodePtr input = std::move(pending.back());
    pending.pop_back();
    input.reset();  // may run ~Node for it, which only appends to `pending`
  }
  draining = false;
}

}  // namespace tensorjit::ir
