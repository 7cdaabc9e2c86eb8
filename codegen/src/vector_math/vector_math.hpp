// Inline vector math for the loop kernels: the transcendental ops of ops.def (exp, exp2, expm1,
// log, log2, log1p, sin, cos, tanh, sigmoid, erf, gelu, gelu_tanh, silu, softplus, pow on floats)
// as LLVM IR polynomials, with no libm call inside the documented ranges (sin and cos call libm
// only for lanes with |x| > 2^30). The same instruction sequence is emitted for any lane count, so
// the vector body, the scalar tail and every VECTOR_BITS give the same bits. Error bounds against
// a correctly rounded reference: docs/vector_math.md.
#pragma once

#include <span>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/op.hpp>

namespace tensorjit::codegen::vector_math {

// Whether `op` on `dtype` operands is emitted here: the transcendental ops of ops.def on floats.
bool has_vector_math(ir::Op op, DType dtype);

// `op` applied to `operands` (f32 or f64 registers of `lanes` lanes: a scalar when lanes == 1).
// f64 ops by functions.hpp; f32 ops by their own emitters (f32_functions.hpp), in f32 but for
// sin and cos, whose large-argument reduction runs in f64.
llvm::Value* emit_vector_math(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes,
                              ir::Op op, DType dtype, std::span<llvm::Value* const> operands);

}  // namespace tensorjit::codegen::vector_math
