// A counted loop in LLVM IR, shared by the reduce and row lowerings: for (i = start; i < end;
// i += step) body(i), i of start's integer type, step a constant or a value of that type, its
// blocks appended to `function`. The body may emit blocks of its own; the increment goes where it
// leaves the builder. Internal to codegen/.
#pragma once

#include <cstdint>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>

namespace tensorjit::codegen {

template <typename Body>
void emit_counted_loop(llvm::IRBuilder<>& builder, llvm::Function* function, const char* name,
                       llvm::Value* start, llvm::Value* end, llvm::Value* step, Body body) {
  llvm::LLVMContext& context = builder.getContext();
  llvm::BasicBlock* before = builder.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context, name, function);
  llvm::BasicBlock* loop_body = llvm::BasicBlock::Create(context, name, function);
  llvm::BasicBlock* after = llvm::BasicBlock::Create(context, name, function);
  builder.CreateBr(header);
  builder.SetInsertPoint(header);
  llvm::PHINode* value = builder.CreatePHI(start->getType(), 2, "i");
  value->addIncoming(start, before);
  builder.CreateCondBr(builder.CreateICmpSLT(value, end), loop_body, after);
  builder.SetInsertPoint(loop_body);
  body(value);
  value->addIncoming(builder.CreateAdd(value, step), builder.GetInsertBlock());
  builder.CreateBr(header);
  builder.SetInsertPoint(after);
}

template <typename Body>
void emit_counted_loop(llvm::IRBuilder<>& builder, llvm::Function* function, const char* name,
                       llvm::Value* start, llvm::Value* end, std::int64_t step, Body body) {
  emit_counted_loop(builder, function, name, start, end, llvm::ConstantInt::get(start->getType(), step), body);
}

}  // namespace tensorjit::codegen
