// canonicalize: common subexpressions merged, constants folded, algebraic identities applied.
//
// Pre:  a graph whose nodes make() accepts (any stage before fusion).
// Post: the same outputs, computing the same bits for every input: only rewrites that are exact in
//       IEEE arithmetic (x*1 -> x, but x + 0.0 stays: it turns -0.0 into 0.0), constant folding
//       through the interpreter's own scalar functions (scalar_ops.hpp). The one bit it may change
//       is the quiet bit of a signalling NaN read from an input, which the removed op (x*1, x/1, a
//       float widening and back) would have set; tensorjit never makes signalling NaNs itself.
//       No two nodes are structurally equal (inputs compared by identity), no elementwise or view
//       node has only constant operands, and no rule of the table applies to any node.
#pragma once

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

Graph canonicalize(const Graph& graph);

}  // namespace tensorjit::ir
