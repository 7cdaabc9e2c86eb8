// The text form of the IR (files end in .tjir). print(parse(text)) == text for any text print
// wrote, and parse(print(g)) is g up to the identity of its inputs (graphs_equal). The format:
//
//   graph {
//     %0 = input f32[2, 3] strides=[3, 1] offset=0
//     %1 = constant f32[] value=2
//     %2 = expand f32[2, 3] %1 shape=[2, 3]
//     %3 = mul f32[2, 3] %0, %2
//     %4 = reduce_sum f32[2] %3 axes=[1] keepdims=false mode=strict
//     outputs %3, %4
//   }
//
// One node a line: `%<n> = <op> <dtype>[<shape>] <operands> <attributes>`. The printer numbers the
// nodes %0, %1, ... in topological_order and puts one space between items; the parser also takes
// any distinct non-negative numbers (each defined before its use), extra spaces and tabs, blank
// lines and `#` comments to the end of a line.
//   dtype       f32 f64 i32 i64 bool; a shape is `[]` (a scalar) or `[2, 3]`, at most kMaxRank axes
//   operands    `%a, %b`, exactly the op's arity (ops.def); concat takes one or more
//   attributes  `key=value`, exactly the ones the op takes (printed in this order, read in any):
//     input        strides=[...] offset=<int>     (the buffer is not in the text: parsed inputs
//                                                  are unbound, with fresh ids)
//     constant     value=<v>                      (the node's dtype and shape are the constant's)
//     iota         start=<f64> step=<f64> strides=[...] offset=<int>   (IotaAttr: the layout of a
//                                                  view of the 1-D iota; [1] and 0 when fresh)
//     reshape, expand  shape=[...]
//     permute      perm=[...]
//     slice        axis=<int> start=<int> step=<int> count=<int>
//     cast         none: the node's dtype is the target
//     reductions   axes=[...] keepdims=true|false mode=strict|fast
//     concat       axis=<int>
//   values      integers in decimal; bool `true`/`false`; floats as the shortest decimal that
//               reads back to the same bits in the dtype's width (fmt), `inf`, `-inf`, `-0`,
//               `nan` and `-nan` for the default quiet NaN, `nan(0x<raw bits>)` for any other NaN.
//               (An f32 constant holds a float, as Scalar::of makes it; a double that is not one
//               is printed in full and read back rounded to f32.)
// Every node states its dtype and shape; the parser builds it through Node::make and checks them
// against what make() infers.
#pragma once

#include <string>
#include <string_view>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

std::string print(const Graph& graph);
// Throws tensorjit::Error naming the line and column and what was expected, for any malformed
// text (it reads untrusted files: no input crashes it or makes it read out of bounds). Inputs come
// back unbound (no buffer), with fresh ids.
Graph parse(std::string_view text);

// Structural equality of two graphs as the text sees them: the same nodes in the same
// topological_order with the same ops, dtypes, shapes, attributes (floats bitwise) and sharing,
// and the same outputs. Inputs are matched by their position in that order: their buffers and
// ids are not compared, their dtypes and layouts are.
bool graphs_equal(const Graph& a, const Graph& b);

}  // namespace tensorjit::ir
