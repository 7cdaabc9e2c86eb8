#include "multiply_add_kernel.hpp"

#include <random>

#include <llvm/IR/IRBuilder.h>

namespace tensorjit::codegen::testing {

void build_multiply_add(llvm::Module& module, const std::string& symbol, int vector_bits) {
  auto& context = module.getContext();
  llvm::IRBuilder<> ir(context);
  auto* float_type = ir.getFloatTy();
  auto* index_type = ir.getInt64Ty();
  auto* pointer_type = ir.getPtrTy();
  const unsigned lanes = static_cast<unsigned>(vector_bits / 32);
  auto* vector_type = llvm::FixedVectorType::get(float_type, lanes);

  auto* function_type = llvm::FunctionType::get(
      ir.getVoidTy(), {pointer_type, pointer_type, pointer_type, pointer_type, index_type}, false);
  auto* function =
      llvm::Function::Create(function_type, llvm::Function::ExternalLinkage, symbol, module);
  set_kernel_function_attributes(*function, vector_bits);
  for (unsigned i = 0; i < 4; ++i) function->addParamAttr(i, llvm::Attribute::NoAlias);
  llvm::Value* a = function->getArg(0);
  llvm::Value* b = function->getArg(1);
  llvm::Value* c = function->getArg(2);
  llvm::Value* y = function->getArg(3);
  llvm::Value* count = function->getArg(4);

  auto* entry = llvm::BasicBlock::Create(context, "entry", function);
  auto* vector_check = llvm::BasicBlock::Create(context, "vector_check", function);
  auto* vector_body = llvm::BasicBlock::Create(context, "vector_body", function);
  auto* scalar_check = llvm::BasicBlock::Create(context, "scalar_check", function);
  auto* scalar_body = llvm::BasicBlock::Create(context, "scalar_body", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);

  ir.SetInsertPoint(entry);
  auto* vector_end =
      ir.CreateAnd(count, ir.getInt64(-static_cast<std::int64_t>(lanes)), "vector_end");
  ir.CreateBr(vector_check);

  ir.SetInsertPoint(vector_check);
  auto* index = ir.CreatePHI(index_type, 2, "i");
  index->addIncoming(ir.getInt64(0), entry);
  ir.CreateCondBr(ir.CreateICmpSLT(index, vector_end), vector_body, scalar_check);

  ir.SetInsertPoint(vector_body);
  auto load_vector = [&](llvm::Value* base) {
    return ir.CreateAlignedLoad(vector_type, ir.CreateGEP(float_type, base, index), llvm::Align(4));
  };
  auto* vector_sum = ir.CreateFAdd(ir.CreateFMul(load_vector(a), load_vector(b)), load_vector(c));
  ir.CreateAlignedStore(vector_sum, ir.CreateGEP(float_type, y, index), llvm::Align(4));
  auto* next_index = ir.CreateAdd(index, ir.getInt64(lanes));
  index->addIncoming(next_index, vector_body);
  ir.CreateBr(vector_check);

  ir.SetInsertPoint(scalar_check);
  auto* tail_index = ir.CreatePHI(index_type, 2, "j");
  tail_index->addIncoming(index, vector_check);
  ir.CreateCondBr(ir.CreateICmpSLT(tail_index, count), scalar_body, exit);

  ir.SetInsertPoint(scalar_body);
  auto load_scalar = [&](llvm::Value* base) {
    return ir.CreateAlignedLoad(float_type, ir.CreateGEP(float_type, base, tail_index),
                                llvm::Align(4));
  };
  auto* scalar_sum = ir.CreateFAdd(ir.CreateFMul(load_scalar(a), load_scalar(b)), load_scalar(c));
  ir.CreateAlignedStore(scalar_sum, ir.CreateGEP(float_type, y, tail_index), llvm::Align(4));
  tail_index->addIncoming(ir.CreateAdd(tail_index, ir.getInt64(1)), scalar_body);
  ir.CreateBr(scalar_check);

  ir.SetInsertPoint(exit);
  ir.CreateRetVoid();
}

ModuleBuilder multiply_add_builder(std::string symbol, int vector_bits) {
  return ModuleBuilder([symbol = std::move(symbol), vector_bits](llvm::Module& module) {
    build_multiply_add(module, symbol, vector_bits);
  });
}

std::vector<float> multiply_add_reference(const std::vector<float>& a, const std::vector<float>& b,
                                          const std::vector<float>& c) {
  std::vector<float> y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float product = a[i] * b[i];
    y[i] = product + c[i];
  }
  return y;
}

std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(-3.0f, 3.0f);
  std::vector<float> values(count);
  for (auto& value : values) value = distribution(generator);
  return values;
}

}  // namespace tensorjit::codegen::testing
