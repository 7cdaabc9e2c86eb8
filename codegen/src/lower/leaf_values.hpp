// How a kernel's leaves come into registers, shared by the loop, reduce and row lowerings: an
// input is loaded from its address; an iota (loop_kernel.hpp, "Iota leaves") is computed from the
// element offset its address stands for, start + offset * step in double (two roundings), then
// converted to its dtype as cast converts: the interpreter's IotaAttr, operation for operation.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/src/lower/loop_plan.hpp"

namespace tensorjit::codegen {

// The element offset an iota leaf's `address` stands for: (address - kIotaAddress) / itemsize.
llvm::Value* iota_offset(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* address);

class LeafReader {
 public:
  // With a `mask` (lanes x i1), read() loads only the lanes it sets, the others zero: a tail
  // shorter than a vector reads no memory past its last element.
  LeafReader(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes, llvm::Value* mask = nullptr)
      : builder_(builder), module_(module), lanes_(lanes), mask_(mask) {}

  // `lanes` consecutive elements from `address` (a scalar when lanes is 1), in register form.
  llvm::Value* read(const LeafSource& leaf, llvm::Value* address);
  // `lanes` elements, lane l at `address` + l * `stride` elements (i64, any sign).
  llvm::Value* read_strided(const LeafSource& leaf, llvm::Value* address, llvm::Value* stride);

 private:
  // The iota's values at `offsets` (i64, `lanes` lanes).
  llvm::Value* iota_values(const LeafSource& leaf, llvm::Value* offsets);

  llvm::IRBuilder<>& builder_;
  llvm::Module& module_;
  unsigned lanes_;
  llvm::Value* mask_;
};

}  // namespace tensorjit::codegen
