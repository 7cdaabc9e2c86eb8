// tj::grad over ir::vjp (ir/src/grad.cpp, the rules in ir/src/vjp_table.cpp).
#include <tensorjit/autodiff.hpp>

#include <tensorjit/functions.hpp>
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/vjp.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::check_defined;
using detail::describe;
using detail::node_of;
using detail::wrap;

std::vector<Tensor> grad(const Tensor& y, const std::vector<Tensor>& xs, const Tensor& dy) {
  check_defined(y, "grad");
  TJ_CHECK(is_floating(y.dtype())) << "grad: y is " << describe(y)
                                   << "; only floating tensors have gradients";
  std::vector<ir::NodePtr> nodes;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    check_defined(xs[i], "grad");
    TJ_CHECK(is_floating(xs[i].dtype())) << "grad: x " << i << " is " << describe(xs[i])
                                         << "; only floating tensors have gradients";
    nodes.push_back(node_of(xs[i], "grad"));
  }
  Tensor adjoint;
  if (dy.defined()) {
    TJ_CHECK(dy.shape() == y.shape()) << "grad: dy " << describe(dy) << " must have the shape of y "
                                      << describe(y);
    adjoint = dy.astype(y.dtype());
  } else {
    TJ_CHECK(y.size() == 1) << "grad: y " << describe(y)
                            << " has more than one element; pass dy, the adjoint of y";
    adjoint = full(y.shape(), 1.0, y.dtype());
  }
  ir::NodePtr y_node = node_of(y, "grad");
  const bool is_x = std::any_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n == y_node; });
  TJ_CHECK(y_node->op() != ir::Op::input || is_x)
      << "grad: y " << describe(y) << " was already evaluated, and an evaluated tensor forgets the "
      << "graph that computed it; call grad before reading y, then evaluate both together "
      << "(tj::eval({loss, grads...}))";
  std::vector<Tensor> result;
  for (auto& node : ir::vjp(y_node, nodes, node_of(adjoint, "grad"))) result.push_back(wrap(node));
  return result;
}

}  // namespace tensorjit
