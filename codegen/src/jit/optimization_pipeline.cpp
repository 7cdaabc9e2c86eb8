#include "codegen/src/jit/optimization_pipeline.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include "codegen/passes/split_vectors.hpp"

namespace tensorjit::codegen {
namespace {

// split_vectors at each function's width, where the backend would not bound it: X86 decides by
// the function attributes only whether 512-bit types are legal, so a kernel of 256 or 512 bits
// keeps to its width by itself, and one of 128 bits on an AVX host does not (split_vectors.hpp).
struct SplitVectorsPass : llvm::PassInfoMixin<SplitVectorsPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager&) {
    const llvm::Attribute width = function.getFnAttribute("min-legal-vector-width");
    unsigned bits = 0;
    if (!width.isValid() || width.getValueAsString().getAsInteger(10, bits) || bits >= 256)
      return llvm::PreservedAnalyses::all();
    return split_vectors(function, bits) ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  }
};

}  // namespace

std::string_view pipeline_name(Pipeline pipeline) {
  switch (pipeline) {
    case Pipeline::none: return "none";
    case Pipeline::instcombine_simplifycfg: return "function(instcombine,simplifycfg,split-vectors)";
    case Pipeline::o1: return "default<O1>";
    case Pipeline::o2: return "default<O2>";
  }
  return "unknown";
}

std::string_view codegen_level_name(llvm::CodeGenOptLevel level) {
  switch (level) {
    case llvm::CodeGenOptLevel::None: return "None";
    case llvm::CodeGenOptLevel::Less: return "Less";
    case llvm::CodeGenOptLevel::Default: return "Default";
    case llvm::CodeGenOptLevel::Aggressive: return "Aggressive";
  }
  return "unknown";
}

void run_pipeline(llvm::Module& module, llvm::TargetMachine* target_machine, Pipeline pipeline) {
  if (pipeline == Pipeline::none) return;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = false;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  llvm::PassBuilder builder(target_machine, tuning);
  llvm::LoopAnalysisManager loop_analyses;
  llvm::FunctionAnalysisManager function_analyses;
  llvm::CGSCCAnalysisManager cgscc_analyses;
  llvm::ModuleAnalysisManager module_analyses;
  builder.registerModuleAnalyses(module_analyses);
  builder.registerCGSCCAnalyses(cgscc_analyses);
  builder.registerFunctionAnalyses(function_analyses);
  builder.registerLoopAnalyses(loop_analyses);
  builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);

  llvm::ModulePassManager passes;
  switch (pipeline) {
    case Pipeline::none: break;
    case Pipeline::instcombine_simplifycfg: {
      llvm::FunctionPassManager function_passes;
      function_passes.addPass(llvm::InstCombinePass());
      function_passes.addPass(llvm::SimplifyCFGPass());
      function_passes.addPass(SplitVectorsPass());
      passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(function_passes)));
      break;
    }
    case Pipeline::o1:
      passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
      break;
    case Pipeline::o2:
      passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
      break;
  }
  passes.run(module, module_analyses);
}

}  // namespace tensorjit::codegen
