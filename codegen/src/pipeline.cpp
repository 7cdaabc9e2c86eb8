#include "pipeline.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

namespace tensorjit::codegen {

std::string_view pipeline_name(Pipeline pipeline) {
  switch (pipeline) {
    case Pipeline::none: return "none";
    case Pipeline::instcombine_simplifycfg: return "function(instcombine,simplifycfg)";
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
