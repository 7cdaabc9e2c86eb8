// What fuse_reductions and fuse_scans share: a materialising op (a reduction, a scan) takes into
// its step the loop step that produces its operand and one loop step that consumes its result
// (docs/contracts.md, contract 6, rules 2 and 6). Not a pass itself: the two passes call it.
//
//   - producer: the loop step whose one output is the op's operand, when the op is that value's
//     only reader and it is no graph output;
//   - consumer: one loop step that reads the op directly and otherwise only inputs and constants
//     (directly or through views), so nothing it needs is computed later.
// The op itself is still written when a graph output or a node outside the consumer reads it.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::ir {

class NeighbourAbsorber {
 public:
  explicit NeighbourAbsorber(const Plan& plan);

  // A step of `kind` whose nodes are the producer's, `op`, then the consumer's (each in
  // topological order); the loop steps it took are marked in merged().
  Step absorb(Step::Kind kind, const NodePtr& op);

  // The plan's steps with `replaced` in place of each op's single step, less the merged loops.
  Plan result(std::vector<Step> replaced) const;

 private:
  std::optional<std::size_t> find_producer(const Node& op) const;
  std::optional<std::size_t> find_consumer(const Node& op) const;

  const Plan& plan_;
  std::unordered_map<const Node*, std::size_t> position_;
  std::unordered_map<const Node*, std::vector<const Node*>> users_;
  std::unordered_set<const Node*> graph_outputs_;
  std::vector<bool> merged_;
};

}  // namespace tensorjit::ir
