// A graph is its outputs; the nodes are whatever they reach. Passes are functions Graph -> Graph.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

struct Graph {
  std::vector<NodePtr> outputs;
};

// Every node reachable from the outputs, each once, inputs before their users; the order is
// deterministic (depth-first, inputs in order). With `is_leaf`, the walk does not go past a node
// it holds for (the node is listed, its inputs are not, unless another path reaches them).
std::vector<NodePtr> topological_order(const Graph& graph,
                                       const std::function<bool(const Node&)>& is_leaf = {});

// How many times each node is used as an input or an output within the graph.
std::unordered_map<const Node*, int> use_counts(const Graph& graph);

// A copy of `graph` in which `replace(node)` stands for each node it returns non-null for; every
// other node is rebuilt over its new inputs, or kept when they did not change. `replace` sees
// every node once, inputs first. The one walk every rewrite of leaves uses.
Graph replace_nodes(const Graph& graph, const std::function<NodePtr(const NodePtr&)>& replace);
// The same over `order`, the graph's nodes as topological_order gives them (with a leaf predicate
// under which every leaf is replaced): the walk is not repeated.
Graph replace_nodes(const Graph& graph, const std::vector<NodePtr>& order,
                    const std::function<NodePtr(const NodePtr&)>& replace);

// Checks the invariants every stage keeps (well-formed nodes, inputs in bounds of their buffers);
// throws InternalError naming the node otherwise. Runs in every test.
void verify(const Graph& graph);

}  // namespace tensorjit::ir
