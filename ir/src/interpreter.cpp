// The interpreter's driver: evaluates the nodes in topological order, each by its ops.def category,
// and frees a value as soon as the last node that reads it has run.
#include <tensorjit/ir/interpreter.hpp>

#include <unordered_map>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/f32_form.hpp>

#include "interpreter_eval.hpp"

namespace tensorjit::ir {
namespace {

// f16 and bf16 reductions, scans, orderings and products: their f32 form (f32_form.hpp), over
// inputs bound to the operands' values.
Value evaluate_in_f32(const Node& node, std::span<const Value> inputs) {
  std::vector<NodePtr> leaves;
  for (const Value& value : inputs) leaves.push_back(make_input(value.buffer, value.dtype, value.layout));
  Graph form;
  form.outputs.push_back(f32_form(*node.with_inputs(std::move(leaves))));
  return interpret(form)[0];
}

Value evaluate_node(const Node& node, std::span<const Value> inputs) {
  if (has_f32_form(node)) return evaluate_in_f32(node, inputs);
  switch (category(node.op())) {
    case OpCategory::source: return evaluate_source(node);
    case OpCategory::movement: return evaluate_view(node, inputs[0]);
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary: return evaluate_elementwise(node, inputs);
    case OpCategory::reduce: return evaluate_reduce(node, inputs[0]);
    case OpCategory::scan: return evaluate_scan(node, inputs[0]);
    case OpCategory::order: return evaluate_order(node, inputs[0]);
    case OpCategory::indexing: return evaluate_indexing(node, inputs);
    case OpCategory::join: return evaluate_concat(node, inputs);
    case OpCategory::contraction: return evaluate_matmul(node, inputs[0], inputs[1]);
  }
  TJ_INTERNAL_CHECK(false) << "interpreter: " << op_name(node.op()) << " has no category";
}

}  // namespace

std::vector<Value> interpret(const Graph& graph) {
  // Uses still to come, per node: a value is dropped when its count reaches zero. Graph outputs
  // count as uses that never come, so their values stay.
  std::unordered_map<const Node*, int> remaining_uses = use_counts(graph);
  std::unordered_map<const Node*, Value> values;
  std::vector<Value> inputs;
  for (const NodePtr& node : topological_order(graph)) {
    inputs.clear();
    for (const NodePtr& input : node->inputs()) inputs.push_back(values.at(input.get()));
    TJ_INTERNAL_CHECK(arity_allows(node->op(), inputs.size()))
        << "interpreter: " << op_name(node->op()) << " has " << inputs.size() << " inputs";
    Value value = evaluate_node(*node, inputs);
    TJ_INTERNAL_CHECK(value.dtype == node->dtype() && value.layout.shape == node->shape())
        << "interpreter: " << op_name(node->op()) << " gave " << dtype_name(value.dtype)
        << shape_str(value.layout.shape) << " for a node of " << dtype_name(node->dtype())
        << shape_str(node->shape());
    values.emplace(node.get(), std::move(value));
    inputs.clear();
    for (const NodePtr& input : node->inputs()) {
      if (--remaining_uses[input.get()] == 0) values.erase(input.get());
    }
  }
  std::vector<Value> outputs;
  outputs.reserve(graph.outputs.size());
  for (const NodePtr& output : graph.outputs) outputs.push_back(values.at(output.get()));
  return outputs;
}

}  // namespace tensorjit::ir
