// What every kernel family's lowering does the same way. A kernel is one function
//   void <symbol>(const <Family>Args* args, i64 begin, i64 end)
// in its own module, whose index arithmetic is i64 and whose arguments come as a struct of
// pointers and counts; each family's lowering (lower_loop, lower_reduce, lower_row) derives from
// this class and adds its loop nest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/src/jit/module_builder.hpp"

namespace tensorjit::codegen {

class KernelLowering {
 protected:
  explicit KernelLowering(llvm::Module& module)
      : module_(module), context_(module.getContext()), builder_(context_), index_type_(builder_.getInt64Ty()) {}

  // Creates the kernel's function with the width's attributes (set_kernel_function_attributes),
  // names its arguments args, begin and end, and starts its entry block.
  void begin_function(const std::string& symbol, int vector_bits) {
    llvm::Type* pointer = builder_.getPtrTy();
    auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {pointer, index_type_, index_type_}, false);
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module_);
    set_kernel_function_attributes(*function_, vector_bits);
    args_ = function_->getArg(0);
    begin_ = function_->getArg(1);
    end_ = function_->getArg(2);
    args_->setName("args");
    begin_->setName("begin");
    end_->setName("end");
    builder_.SetInsertPoint(block("entry"));
  }

  llvm::Value* index(std::int64_t value) { return builder_.getInt64(value); }
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(context_, name, function_); }
  // The field of `type` at byte `offset` of the argument struct.
  llvm::Value* load_field(llvm::Type* type, std::size_t offset, const char* name) {
    llvm::Value* address = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_, offset);
    return builder_.CreateAlignedLoad(type, address, llvm::Align(8), name);
  }
  // base[position] of an i64 array.
  llvm::Value* load_index(llvm::Value* base, llvm::Value* position, const char* name) {
    return builder_.CreateAlignedLoad(index_type_, builder_.CreateGEP(index_type_, base, position), llvm::Align(8),
                                      name);
  }

  // <lanes x i1>: lane l set when l < count (an i64). The mask of a tail of `count` elements.
  llvm::Value* lanes_below(unsigned lanes, llvm::Value* count) {
    std::vector<llvm::Constant*> numbers;
    for (unsigned lane = 0; lane < lanes; ++lane) numbers.push_back(builder_.getInt64(lane));
    return builder_.CreateICmpSLT(llvm::ConstantVector::get(numbers), builder_.CreateVectorSplat(lanes, count), "in_row");
  }

  // A loop over `index` from `start` while below `end`, by `step`, that carries `initial` (the
  // accumulators, held in registers) from one iteration to the next: `body(index, carried)` emits
  // an iteration and returns the next carried value. Blocks are called `name`; the builder ends
  // after the loop, and the value carried out of it is returned.
  template <typename Body>
  llvm::Value* emit_carried_loop(const char* name, const char* index_name, llvm::Value* start, llvm::Value* end,
                                 std::int64_t step, llvm::Value* initial, Body body) {
    llvm::BasicBlock* before = builder_.GetInsertBlock();
    llvm::BasicBlock* header = block(name);
    llvm::BasicBlock* iteration = block(name);
    llvm::BasicBlock* after = block(name);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* position = builder_.CreatePHI(index_type_, 2, index_name);
    llvm::PHINode* carried = builder_.CreatePHI(initial->getType(), 2, "accumulators");
    position->addIncoming(start, before);
    carried->addIncoming(initial, before);
    builder_.CreateCondBr(builder_.CreateICmpSLT(position, end), iteration, after);
    builder_.SetInsertPoint(iteration);
    llvm::Value* next = body(position, carried);
    position->addIncoming(builder_.CreateAdd(position, index(step)), builder_.GetInsertBlock());
    carried->addIncoming(next, builder_.GetInsertBlock());
    builder_.CreateBr(header);
    builder_.SetInsertPoint(after);
    return carried;
  }

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> builder_;
  llvm::Type* index_type_;
  llvm::Function* function_ = nullptr;
  llvm::Value* args_ = nullptr;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
};

}  // namespace tensorjit::codegen
