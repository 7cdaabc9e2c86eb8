// Lowering of one fused reduction kernel (reduce_kernel.hpp) to LLVM IR.
#pragma once

#include <string>

#include <llvm/IR/Module.h>

#include "codegen/src/lower/reduce_plan.hpp"

namespace tensorjit::codegen {

void build_reduce_kernel(llvm::Module& module, const ReducePlan& plan, const std::string& symbol,
                         int vector_bits);

}  // namespace tensorjit::codegen
