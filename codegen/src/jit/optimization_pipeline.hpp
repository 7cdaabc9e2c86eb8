// The optimization applied to every kernel and the codegen level: fixed for the process, and part
// of the disk cache key. docs/codegen.md has the measurements behind the choice.
#pragma once

#include <string_view>

#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Target/TargetMachine.h>

#include <tensorjit/codegen/jit.hpp>

namespace tensorjit::codegen {

enum class Pipeline {
  none,                     // no IR pass at all
  instcombine_simplifycfg,  // function(instcombine, simplifycfg, split-vectors): the one the JIT uses
  o1,
  o2,
};

inline constexpr Pipeline kKernelPipeline = Pipeline::instcombine_simplifycfg;

// The codegen level of each tier (jit.hpp, CodeTier): FastISel and the fast register allocator
// first (a third of the time of Default), then Default, whose code is up to 2.4x faster on
// kernels with many live values (docs/codegen.md, "Tiers").
inline constexpr llvm::CodeGenOptLevel codegen_level(CodeTier tier) {
  return tier == CodeTier::quick ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
}

std::string_view pipeline_name(Pipeline pipeline);
std::string_view codegen_level_name(llvm::CodeGenOptLevel level);

// Runs `pipeline` over `module` with the new pass manager. Loop unrolling and LLVM's vectorizers
// are off in every pipeline: kernels unroll and vectorize themselves, lane-independently.
// `target_machine` (may be null) supplies the cost model. Never adds fast-math flags, so the result
// computes the same bits as the input.
void run_pipeline(llvm::Module& module, llvm::TargetMachine* target_machine, Pipeline pipeline);

}  // namespace tensorjit::codegen
