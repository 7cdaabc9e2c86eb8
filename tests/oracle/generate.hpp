// Draws a random program (program.hpp) from a seed: one to four inputs of every dtype, rank and
// layout, over extents shared within the program (so that operands broadcast and multiply), then
// statements over the rows of oracle_ops.hpp. Every statement is built while drawing, so a drawn
// program is one tensorjit accepts: an op whose build throws tensorjit::Error is drawn again.
#pragma once

#include <cstdint>

#include "program.hpp"

namespace oracle {

Program generate_program(std::uint64_t seed);

// A program of differentiable ops (differentiable_ops()) over f32 and f64 inputs of unit scale,
// whose one output is the last statement, followed by its adjoint: an input named `dy` of the
// output's shape. The driver's grad command evaluates tj::grad(output, floating inputs, dy).
Program generate_grad_program(std::uint64_t seed);

}  // namespace oracle
