// The LLVM IR of each elementwise op of ops.def, on scalars or on explicit vectors: the same
// instruction sequence per lane either way, so a vector body and a scalar tail give the same bits
// (docs/contracts.md, contract 3). Each formula is the one of ir/scalar_ops.hpp, operation for
// operation: no fast-math flags, no contraction, NaN and -0.0 chosen by compare and select as the
// scalar code chooses them, integer division, modulo and shifts guarded by selects so that no
// lane reaches LLVM's undefined behaviour. Transcendental functions and float pow are inline
// polynomials (vector_math/vector_math.hpp): within their documented ULP bounds of the
// interpreter's libm, not bit-identical with it.
#pragma once

#include <span>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/op.hpp>

namespace tensorjit::codegen {

// Register types: f32 float, f64 double, i32, i64, bool i1 (memory holds bool as an i8 0 or 1),
// f16 and bf16 float (memory holds half and i16: storage_float.hpp).
// `lanes` == 1 means a scalar, otherwise <lanes x T>.
llvm::Type* register_type(llvm::LLVMContext& context, DType dtype, unsigned lanes);
// The element type in memory (bool is i8).
llvm::Type* memory_element_type(llvm::LLVMContext& context, DType dtype);

// Whether `op` on `operand_dtype` is emitted as one division per lane (integer division and
// modulo, float fmod): the lowering unrolls such kernels less, since those dominate.
bool is_per_lane_op(ir::Op op, DType operand_dtype);

class ElementwiseEmitter {
 public:
  ElementwiseEmitter(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes)
      : builder_(builder), module_(module), lanes_(lanes) {}

  // A constant leaf: `value` as the interpreter reads it for `dtype`, in every lane.
  llvm::Value* constant(DType dtype, const ir::Scalar& value);

  // `op` applied to `operands` (register values of `lanes` lanes). `result_dtype` is the node's
  // dtype; the operands' dtype is that of the last operand (where's first operand is its bool
  // condition), as in the interpreter.
  llvm::Value* emit(ir::Op op, DType result_dtype, DType operand_dtype,
                    std::span<llvm::Value* const> operands);

  // Memory <-> registers: bool widens from i8 (x != 0) and narrows to i8 0/1; f16 and bf16 widen
  // to f32 and round back; others unchanged.
  llvm::Value* from_memory(DType dtype, llvm::Value* value);
  llvm::Value* to_memory(DType dtype, llvm::Value* value);

 private:
  llvm::Value* emit_cast(DType to, DType from, llvm::Value* x);
  llvm::Value* emit_unary(ir::Op op, DType dtype, llvm::Value* x);
  llvm::Value* emit_binary(ir::Op op, DType dtype, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_integer_division(DType dtype, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_integer_modulo(DType dtype, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_float_modulo(DType dtype, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_integer_power(DType dtype, llvm::Value* base, llvm::Value* exponent);
  llvm::Value* emit_shift(ir::Op op, DType dtype, llvm::Value* a, llvm::Value* s);

  llvm::Value* float_constant(DType dtype, double value);
  llvm::Value* integer_constant(DType dtype, std::int64_t value);
  llvm::Value* boolean_constant(bool value);  // an i1 in every lane

  llvm::IRBuilder<>& builder_;
  llvm::Module& module_;
  unsigned lanes_;
};

}  // namespace tensorjit::codegen
