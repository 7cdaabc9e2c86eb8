// f16 and bf16 in the kernels (dtype.hpp): held in registers as f32 values that the 16-bit type
// represents exactly, converted on load and rounded after each op and on store, so a fused chain
// gives the interpreter's op-by-op bits at every width.
//
// f16 uses LLVM's half conversions, which the x86 backend emits as F16C's vcvtph2ps/vcvtps2ph
// (AVX-512 FP16's forms where the CPU has them); their bits are the software conversion's of
// dtype.hpp (tests/ir/test_storage_float_conversion.cpp samples a million floats; all 2^32 agreed
// when checked once by hand). A widened f16 passes through llvm.arithmetic.fence, so that LLVM
// compares the f32 values instead of folding the compare back to the halves (which x86 without
// AVX-512 FP16 scalarizes, lane by lane with branches). bf16 widens by a
// shift and rounds with integer operations: AVX-512 BF16's vcvtneps2bf16 flushes subnormals to
// zero, so it cannot give the software bits.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <tensorjit/dtype.hpp>

namespace tensorjit::codegen {

// The memory element of f16 (half) or bf16 (i16).
llvm::Type* storage_element_type(llvm::LLVMContext& context, DType dtype);

// A loaded f16/bf16 value (scalar or vector) as f32 (exact).
llvm::Value* widen_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* stored);

// An f32 value rounded to the f16/bf16 memory element (to nearest even, NaN quieted).
llvm::Value* narrow_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* value);

// An f32 value rounded to the nearest f16/bf16, kept as f32: what an op's result becomes.
llvm::Value* round_to_storage_float(llvm::IRBuilder<>& builder, DType dtype, llvm::Value* value);

}  // namespace tensorjit::codegen
