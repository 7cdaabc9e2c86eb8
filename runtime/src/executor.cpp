#include "runtime/src/executor.hpp"

#include <unordered_map>

#include <tensorjit/ir/interpreter.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::detail {
namespace {

bool is_materialized(const ir::NodePtr& node) {
  return node->op() == ir::Op::input && node->attr<ir::InputAttr>().buffer;
}

}  // namespace

ir::Graph graph_for(const std::vector<ir::NodePtr>& outputs) {
  std::unordered_map<const ir::Node*, ir::NodePtr> replaced;
  for (const auto& node : ir::topological_order(ir::Graph{outputs})) {
    if (auto value = node->realized()) {
      replaced[node.get()] = ir::make_input(value->buffer, value->dtype, value->layout);
      continue;
    }
    std::vector<ir::NodePtr> inputs;
    for (const auto& in : node->inputs()) inputs.push_back(replaced.at(in.get()));
    replaced[node.get()] = node->with_inputs(std::move(inputs));
  }
  ir::Graph graph;
  for (const auto& out : outputs) graph.outputs.push_back(replaced.at(out.get()));
  return graph;
}

void evaluate(const std::vector<Tensor>& tensors) {
  std::vector<std::shared_ptr<TensorImpl>> pending;
  std::vector<ir::NodePtr> nodes;
  for (const auto& tensor : tensors) {
    ir::NodePtr node = node_of(tensor, "eval");
    if (is_materialized(node)) continue;
    pending.push_back(tensor.impl());
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) return;

  ir::Graph graph = graph_for(nodes);
  std::vector<ir::Value> values = ir::interpret(graph);

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i]->set_realized(values[i]);
    pending[i]->replace(ir::make_input(values[i].buffer, values[i].dtype, values[i].layout));
  }
}

}  // namespace tensorjit::detail
