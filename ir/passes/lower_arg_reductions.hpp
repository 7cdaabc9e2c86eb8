// lower_arg_reductions: argmax and argmin become reductions the JIT runs, instead of single steps
// on the interpreter.
//
// Pre:  a graph whose nodes make() accepts.
// Post: no argmax or argmin node. Each argmax(x, axis) (argmin alike, with reduce_min) is
//         m   = reduce_max(x, axis, keepdims) expanded back over x
//         hit = x == m, or for floats (t != t) || x == m with t = where(m != m, x, 0)
//         reduce_min(where(hit, i, n), axis) with i the index along the axis (an iota of n, i32
//         cast to i64 after the reduction when n < 2^31)
//       which gives the same i64 bits: the first index of the extreme, the first NaN when there
//       is one (reduce_max and reduce_min propagate NaN), -0.0 and 0.0 tied (x == m holds for both).
#pragma once

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

Graph lower_arg_reductions(const Graph& graph);

}  // namespace tensorjit::ir
