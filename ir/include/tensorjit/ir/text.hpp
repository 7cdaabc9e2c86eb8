// The text form of the IR (files end in .tjir). print(parse(text)) == text, and parse(print(g)) is
// structurally g (inputs matched by position). The format:
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
// Every node states its dtype and shape; the parser checks them against what make() infers.
#pragma once

#include <string>
#include <string_view>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

std::string print(const Graph& graph);
// Throws tensorjit::Error naming the line and column and what was expected. Inputs come back
// unbound (no buffer), with fresh ids.
Graph parse(std::string_view text);

}  // namespace tensorjit::ir
