// Lowering of one row kernel (row_kernel.hpp) to LLVM IR. Internal to codegen/src.
#pragma once

#include <string>

#include <llvm/IR/Module.h>

#include "codegen/src/lower/row_plan.hpp"

namespace tensorjit::codegen {

void build_row_kernel(llvm::Module& module, const RowPlan& plan, const std::string& symbol,
                      int vector_bits);

}  // namespace tensorjit::codegen
