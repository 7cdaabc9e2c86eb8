// A gather's index check, shared by the loop and row lowerings (loop_kernel.hpp and row_kernel.hpp,
// "Gathers"): the index resolved against its axis's extent as ir::resolve_index does, and an index
// outside it reported to the call's IndexFault, so that nothing is read out of bounds and the
// runtime can throw the first one in row-major order.
#pragma once

#include <cstdint>

#include <llvm/IR/IRBuilder.h>

namespace tensorjit::codegen {

struct ResolvedIndex {
  llvm::Value* inside = nullptr;   // per lane (i1, or a vector of i1): the index names an element
  llvm::Value* element = nullptr;  // per lane (i64): the element it names where inside, else 0
};

// `indices` (i64, a scalar or a vector) against `extent` (i64 scalar): i, or i + extent when i < 0.
ResolvedIndex resolve_index(llvm::IRBuilder<>& builder, llvm::Value* indices, llvm::Value* extent);

// When a lane of `resolved.inside` is false: records in `fault` (an IndexFault*) the gathered
// input `input`, the index of the first such lane (from `indices`) and its position (`position`,
// the position of lane 0, plus the lane), unless it already holds an index at a position no
// later. The branch is weighted as never taken; the builder continues after it. Keeping the
// earliest position, not the first met, makes the report the row-major first whatever order the
// kernel meets its gathers in (two gathers of one vector, the phases of a row kernel).
void emit_index_fault(llvm::IRBuilder<>& builder, llvm::Value* fault, std::int64_t input,
                      const ResolvedIndex& resolved, llvm::Value* indices, llvm::Value* position);

}  // namespace tensorjit::codegen
