#include "ir/passes/lower_arg_reductions.hpp"

#include <unordered_map>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {
namespace {

NodePtr lower(const NodePtr& arg) {
  const NodePtr& x = arg->input(0);
  const auto& attr = arg->attr<ReduceAttr>();
  const int axis = attr.axes.front();
  const Shape& shape = x->shape();
  const std::int64_t extent = shape[static_cast<std::size_t>(axis)];
  const Op extreme = arg->op() == Op::argmax ? Op::reduce_max : Op::reduce_min;
  NodePtr best = make_expand(make_reduce(extreme, x, {axis}, true, attr.mode), shape);
  NodePtr hit = make_binary(Op::eq, x, best);
  if (is_floating(x->dtype())) {
    // A NaN extreme: x's NaNs hit. t is x where the extreme is NaN, else 0, so that every node
    // reads the extreme and the fusion keeps them in the reduction's producer (an x != x of its
    // own would be a loop writing a whole bool tensor).
    NodePtr t = Node::make(Op::where, {make_binary(Op::ne, best, best), x,
                                       make_constant(x->dtype(), shape, Scalar::of(x->dtype(), 0))});
    hit = make_binary(Op::logical_or, make_binary(Op::ne, t, t), hit);
  }
  // Indices in i32 where they fit: the reduction then runs on 64 lanes of 4 bytes, not 32 of 8.
  const DType index_dtype = extent < (std::int64_t{1} << 31) ? DType::i32 : DType::i64;
  Shape along(shape.size(), 1);
  along[static_cast<std::size_t>(axis)] = extent;
  NodePtr index = make_expand(
      make_reshape(Node::make(Op::iota, {}, IotaAttr{index_dtype, extent, 0, 1}), along), shape);
  NodePtr none = make_constant(index_dtype, shape, Scalar::of_int(index_dtype, extent));
  NodePtr first = make_reduce(Op::reduce_min, Node::make(Op::where, {hit, index, none}), {axis},
                              attr.keepdims, attr.mode);
  return index_dtype == DType::i64 ? first : make_cast(first, DType::i64);
}

}  // namespace

Graph lower_arg_reductions(const Graph& graph) {
  std::unordered_map<const Node*, NodePtr> rebuilt;
  for (const auto& node : topological_order(graph)) {
    bool changed = false;
    std::vector<NodePtr> inputs;
    for (const auto& in : node->inputs()) {
      inputs.push_back(rebuilt.at(in.get()));
      changed = changed || inputs.back() != in;
    }
    NodePtr result = changed ? node->with_inputs(std::move(inputs)) : node;
    if (result->op() == Op::argmax || result->op() == Op::argmin) result = lower(result);
    rebuilt[node.get()] = result;
  }
  Graph out;
  for (const auto& output : graph.outputs) out.outputs.push_back(rebuilt.at(output.get()));
  return out;
}

}  // namespace tensorjit::ir
