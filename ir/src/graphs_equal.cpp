// graphs_equal (text.hpp): the equality parse(print(g)) keeps, since parsing makes fresh inputs.
#include <unordered_map>

#include <tensorjit/ir/text.hpp>

namespace tensorjit::ir {
namespace {

// Attributes equal, except an input's buffer and id, which the text does not carry.
bool attributes_equal_ignoring_input_identity(const Node& a, const Node& b) {
  if (a.op() != Op::input) return attrs_equal(a.attrs(), b.attrs());
  const auto& first = a.attr<InputAttr>();
  const auto& second = b.attr<InputAttr>();
  return first.dtype == second.dtype && first.layout == second.layout;
}

}  // namespace

bool graphs_equal(const Graph& a, const Graph& b) {
  auto order_a = topological_order(a);
  auto order_b = topological_order(b);
  if (order_a.size() != order_b.size() || a.outputs.size() != b.outputs.size()) return false;
  std::unordered_map<const Node*, std::size_t> position_a, position_b;
  for (std::size_t i = 0; i < order_a.size(); ++i) {
    position_a.emplace(order_a[i].get(), i);
    position_b.emplace(order_b[i].get(), i);
  }
  for (std::size_t i = 0; i < order_a.size(); ++i) {
    const Node& x = *order_a[i];
    const Node& y = *order_b[i];
    if (x.op() != y.op() || x.dtype() != y.dtype() || x.shape() != y.shape() ||
        x.inputs().size() != y.inputs().size() || !attributes_equal_ignoring_input_identity(x, y)) {
      return false;
    }
    for (std::size_t k = 0; k < x.inputs().size(); ++k) {
      if (position_a.at(x.inputs()[k].get()) != position_b.at(y.inputs()[k].get())) return false;
    }
  }
  for (std::size_t k = 0; k < a.outputs.size(); ++k) {
    if (position_a.at(a.outputs[k].get()) != position_b.at(b.outputs[k].get())) return false;
  }
  return true;
}

}  // namespace tensorjit::ir
