// fuse_reductions: gives each JIT-lowered reduction its elementwise producers and consumers
// (docs/contracts.md, contract 6, rule 2).
//
// Pre:  a Plan from fuse (reductions are `single` steps).
// Post: every reduction's single step (argmax and argmin too) is a `reduce` step whose nodes
//       are, in topological order, its producer ops, the reduction, its consumer ops:
//   - producers: the loop step that computes the reduction's operand, merged when that operand is
//     the loop's only output and the reduction its only reader (so `((a - b) * (a - b)).sum()`
//     reads a and b once and writes nothing else);
//   - consumers: one loop step over the reduction's result, merged when every value it reads from
//     outside is the reduction itself, an input or a constant (directly or through views), so
//     nothing it needs is computed later. The reduction is still written when a graph output or
//     another step reads it.
// Loop steps that were merged disappear. The steps stay in
// an order that respects every dependency (a merged producer ran before the reduction anyway; a
// merged consumer reads nothing computed after it).
#pragma once

#include "ir/passes/fuse.hpp"

namespace tensorjit::ir {

Plan fuse_reductions(const Plan& plan);

}  // namespace tensorjit::ir
