// fuse_epilogues: gives a floating matmul its elementwise consumers as a GEMM epilogue
// (docs/contracts.md, contract 6, rule 4): they run on each finished tile of C while it is in L1, so
// the product is written once and, when nothing else needs it, never read back from memory.
//
// Pre:  a Plan from fuse (matmuls are `single` steps; elementwise groups are `loop` steps).
// Post: a floating matmul's single step and the one loop step that consumes it are merged into a
//       `product` step whose nodes are the matmul, then the loop's ops (its order kept), when
//   - every node that reads the matmul is an op of that loop step (read directly, not through a
//     view, by no other step), and
//   - the loop's domain is the matmul's shape (each consumer needs only the product's element at
//     its own position, plus other inputs: a bias along rows or columns, a residual, constants).
//       The product step writes the loop's outputs, plus the matmul itself when it is a graph
//       output. It takes the loop step's place in the order: everything either step reads is
//       computed before it, and only the loop's values are read after it. Other steps are kept.
#pragma once

#include "ir/passes/fuse.hpp"

namespace tensorjit::ir {

Plan fuse_epilogues(const Plan& plan);

}  // namespace tensorjit::ir
