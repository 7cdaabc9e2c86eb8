// Reverse-mode differentiation over the IR: the table of vector-Jacobian products, one row per op
// of ops.def (ir/src/vjp_table.cpp), and the walk that applies it (ir/src/grad.cpp).
//
// Every adjoint is an ordinary node built through Node::make, so a gradient is a lazy graph like
// any other: it fuses with the forward values it reads and with whatever consumes it, and it can
// be differentiated again. Only floating values carry gradients; integer, boolean and comparison
// results have none (docs/autodiff.md).
#pragma once

#include <string_view>
#include <vector>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

// How an op passes gradients to its operands.
enum class VjpKind : std::uint8_t {
  source,          // no operands (input, constant, iota): where the walk stops
  differentiable,  // a rule gives the adjoint of each floating operand
  none,            // no gradient flows: integer, boolean or piecewise-constant results, detach
};

// The adjoints of `node`'s operands given the adjoint `dy` of its result (same shape and dtype as
// `node`), one per operand, null where no gradient flows. Each adjoint has its operand's shape and
// dtype.
using VjpRule = std::vector<NodePtr> (*)(const NodePtr& node, const NodePtr& dy);

struct VjpRow {
  Op op;
  VjpKind kind;
  VjpRule rule;             // null unless kind is differentiable
  std::string_view reason;  // for none: why no gradient flows
};

// The row of `op`.
const VjpRow& vjp_row(Op op);

// The vector-Jacobian product of `y` with `dy` with respect to each of `xs`: the adjoint of x_i,
// a node of x_i's shape and dtype, or a zero constant when y does not depend on x_i through
// floating values. `dy` has y's shape and dtype. Adjoints of a node used several times are summed
// in the order of the reverse topological walk, one fixed order. xs must be floating.
std::vector<NodePtr> vjp(const NodePtr& y, const std::vector<NodePtr>& xs, const NodePtr& dy);

}  // namespace tensorjit::ir
