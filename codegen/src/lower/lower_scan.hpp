// Lowering of one fused scan kernel (scan_kernel.hpp) to LLVM IR. Internal to codegen/src.
#pragma once

#include <string>

#include <llvm/IR/Module.h>

#include "codegen/src/lower/scan_plan.hpp"

namespace tensorjit::codegen {

void build_scan_kernel(llvm::Module& module, const ScanPlan& plan, const std::string& symbol, int vector_bits);

}  // namespace tensorjit::codegen
