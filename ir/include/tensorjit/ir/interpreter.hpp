// The scalar reference interpreter: the oracle every fast path is tested against.
//
// It evaluates a graph node by node with plain scalar loops in each node's dtype: libm for
// transcendental functions, reductions in the strict blocked order of reduction_order.hpp over
// the reduced elements in row-major order (the order the JIT reproduces), no contraction of a*b + c. Views are index arithmetic over their input's value (a reshape
// that strides cannot express copies). A value is freed as soon as no later node needs it. Every
// input must be bound to a buffer.
#pragma once

#include <vector>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::ir {

// One value per graph output, in order. Outputs that are views of inputs share their buffers.
std::vector<Value> interpret(const Graph& graph);

}  // namespace tensorjit::ir
