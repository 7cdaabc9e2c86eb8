// fold_views: views become index arithmetic of the values they read (docs/contracts.md, contract 2).
//
// Pre:  any graph.
// Post: the same outputs, the same bits. Every view (reshape, permute, expand, slice) over an
//       elementwise op has been pushed through it to that op's operands (a view of f(x, y) is
//       f(view x, view y): elementwise ops are pointwise), views over a constant became a constant
//       of the view's shape, and view chains over an `input` or an `iota` became one input or iota
//       with the composed layout (`apply_view`; an iota's value is computed from the element
//       offset its layout gives, IotaAttr). A view is left only over a node that is materialised
//       anyway (a reduction, a matmul, copy, or an elementwise value that a matmul reads through
//       reshapes, permutes and expands: written in its own shape, read through the views); a
//       reshape that strides cannot express over an input or an iota is left over a `copy` of it.
//       So no movement op sits between two elementwise ops, and every elementwise op's operands
//       are elementwise ops, inputs, constants or views of materialised nodes.
//
// Pushing a view down recomputes the ops below it once per element of the view: an expand of an
// elementwise result repeats that work along the expanded axes, which costs less than storing and
// re-reading the value for the cheap ops it is meant for.
#pragma once

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

Graph fold_views(const Graph& graph);

}  // namespace tensorjit::ir
