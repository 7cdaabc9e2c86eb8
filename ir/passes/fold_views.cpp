#include "ir/passes/fold_views.hpp"

#include <map>
#include <unordered_map>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/view.hpp>

namespace tensorjit::ir {
namespace {

// A view op with its attributes, to re-apply to another node of the same shape as its input.
NodePtr reapply(const Node& view, NodePtr onto) { return Node::make(view.op(), {std::move(onto)}, view.attrs()); }

class ViewFolder {
 public:
  // The node equal to `view` applied to `node` with all views pushed down.
  NodePtr push(const Node& view, const NodePtr& node) {
    auto key = std::make_pair(&view, node.get());
    if (auto it = pushed_.find(key); it != pushed_.end()) return it->second;
    NodePtr result = push_uncached(view, node);
    keep_.push_back(node);
    pushed_.emplace(key, result);
    return result;
  }

  // `node` rewritten so that every view below it is folded.
  NodePtr fold(const NodePtr& node) {
    if (auto it = folded_.find(node.get()); it != folded_.end()) return it->second;
    NodePtr result;
    if (is_movement(node->op())) {
      result = push(*node, fold(node->input(0)));
    } else {
      std::vector<NodePtr> inputs;
      for (const auto& in : node->inputs())
        inputs.push_back(node->op() == Op::matmul ? fold_product_operand(in) : fold(in));
      result = node->with_inputs(std::move(inputs));
    }
    folded_.emplace(node.get(), result);
    return result;
  }

 private:
  // A matmul reads its operands from memory through their strides, so an elementwise operand is
  // written out anyway. Seen through reshapes, permutes and expands that keep every element
  // (attention's head split [B, T, H] -> [B, N, T, D], a transposed key, a broadcast batch), it is
  // written in its own shape, where a product epilogue can compute it (q = x @ Wq + b), and the
  // matmul reads it through the views. Pushed down instead, the views would make it a separate
  // loop that writes a permuted copy, and the product that produced it would lose its epilogue.
  // A slice stays pushed down: it would write elements that nothing reads.
  NodePtr fold_product_operand(const NodePtr& operand) {
    std::vector<const Node*> views;
    NodePtr base = operand;
    while (base->op() == Op::reshape || base->op() == Op::permute || base->op() == Op::expand) {
      views.push_back(base.get());
      base = base->input(0);
    }
    if (views.empty() || !is_elementwise(base->op()) || base->op() == Op::copy) return fold(operand);
    std::optional<Layout> layout = Layout::contiguous(base->shape());
    for (auto view = views.rbegin(); view != views.rend() && layout; ++view) layout = apply_view(*layout, **view);
    if (!layout) return fold(operand);
    NodePtr result = fold(base);
    for (auto view = views.rbegin(); view != views.rend(); ++view) result = reapply(**view, std::move(result));
    return result;
  }

  NodePtr push_uncached(const Node& view, const NodePtr& node) {
    if (is_elementwise(node->op()) && node->op() != Op::copy) {
      std::vector<NodePtr> inputs;
      for (const auto& in : node->inputs()) inputs.push_back(push(view, in));
      return Node::make(node->op(), std::move(inputs), node->attrs());
    }
    if (node->op() == Op::constant) {
      const auto& c = node->attr<ConstantAttr>();
      return make_constant(c.dtype, view.shape(), c.value);
    }
    if (node->op() == Op::input) {
      const auto& in = node->attr<InputAttr>();
      if (auto layout = apply_view(in.layout, view)) {
        InputAttr folded = in;
        folded.layout = std::move(*layout);
        // Folded inputs of one buffer are one value per layout: ids keep CSE from merging two
        // different layouts, and keep two folds of the same layout apart only when they differ.
        folded.id = layout_id(in, folded.layout);
        return Node::make(Op::input, {}, std::move(folded));
      }
      return reapply(view, make_unary(Op::copy, node));
    }
    if (node->op() == Op::iota) {
      const auto& iota = node->attr<IotaAttr>();
      if (auto layout = apply_view(iota.layout, view)) {
        IotaAttr folded = iota;
        folded.layout = std::move(*layout);
        return Node::make(Op::iota, {}, std::move(folded));
      }
      return reapply(view, make_unary(Op::copy, node));
    }
    // Over a materialised node (contiguous when written) or a view chain of one, the view stays
    // and is resolved against the written layout at run time; a reshape that strides cannot
    // express over the chain reads a contiguous copy instead.
    if (auto base = written_layout(*node); base && apply_view(*base, view)) return reapply(view, node);
    return reapply(view, make_unary(Op::copy, node));
  }

  // The layout in which a materialised node, seen through a chain of views, is read.
  static std::optional<Layout> written_layout(const Node& node) {
    if (!is_movement(node.op())) return Layout::contiguous(node.shape());
    auto below = written_layout(*node.input(0));
    if (!below) return std::nullopt;
    return apply_view(*below, node);
  }

  std::uint64_t layout_id(const InputAttr& input, const Layout& layout) {
    auto key = std::make_tuple(input.buffer.get(), input.id, layout.shape, layout.strides, layout.offset);
    auto [it, inserted] = layout_ids_.try_emplace(key, 0);
    if (inserted) it->second = next_input_id();
    return it->second;
  }

  std::map<std::pair<const Node*, const Node*>, NodePtr> pushed_;
  std::unordered_map<const Node*, NodePtr> folded_;
  std::map<std::tuple<const Buffer*, std::uint64_t, Shape, Strides, std::int64_t>, std::uint64_t> layout_ids_;
  std::vector<NodePtr> keep_;  // keeps keyed nodes alive so their addresses stay unique
};

}  // namespace

Graph fold_views(const Graph& graph) {
  ViewFolder folder;
  Graph out;
  for (const auto& node : graph.outputs) out.outputs.push_back(folder.fold(node));
  return out;
}

}  // namespace tensorjit::ir
