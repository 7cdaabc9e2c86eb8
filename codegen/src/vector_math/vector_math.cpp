#include "codegen/src/vector_math/vector_math.hpp"

#include <vector>

#include <tensorjit/ir/check.hpp>

#include "codegen/src/vector_math/f32_functions.hpp"
#include "codegen/src/vector_math/functions.hpp"

namespace tensorjit::codegen::vector_math {
namespace {

using ir::Op;

llvm::Value* emit_f64(MathBuilder& m, Op op, std::span<llvm::Value* const> x) {
  switch (op) {
    case Op::exp: return exp(m, x[0]);
    case Op::exp2: return exp2(m, x[0]);
    case Op::expm1: return expm1(m, x[0]);
    case Op::log: return log(m, x[0]);
    case Op::log2: return log2(m, x[0]);
    case Op::log1p: return log1p(m, x[0]);
    case Op::sin: return sin(m, x[0]);
    case Op::cos: return cos(m, x[0]);
    case Op::tanh: return tanh(m, x[0]);
    case Op::sigmoid: return sigmoid(m, x[0]);
    case Op::erf: return erf(m, x[0]);
    case Op::gelu: return gelu(m, x[0]);
    case Op::gelu_tanh: return gelu_tanh(m, x[0]);
    case Op::silu: return silu(m, x[0]);
    case Op::softplus: return softplus(m, x[0]);
    case Op::pow: return pow(m, x[0], x[1]);
    case Op::tan: return tan(m, x[0]);
    case Op::atan: return atan(m, x[0]);
    case Op::atan2: return atan2(m, x[0], x[1]);
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "vector math: no emitter for " << ir::op_name(op);
  return nullptr;  // not reached: the check throws
}

// The transcendental ops with a native f32 emitter (f32_functions.hpp); atan and atan2 are
// evaluated in f64 and rounded once (has_native_f32).
bool has_native_f32(Op op) { return op != Op::atan && op != Op::atan2; }

llvm::Value* emit_f32(MathBuilder& m, Op op, std::span<llvm::Value* const> x) {
  switch (op) {
    case Op::exp: return f32::exp(m, x[0]);
    case Op::exp2: return f32::exp2(m, x[0]);
    case Op::expm1: return f32::expm1(m, x[0]);
    case Op::log: return f32::log(m, x[0]);
    case Op::log2: return f32::log2(m, x[0]);
    case Op::log1p: return f32::log1p(m, x[0]);
    case Op::tanh: return f32::tanh(m, x[0]);
    case Op::erf: return f32::erf(m, x[0]);
    case Op::sigmoid: return f32::sigmoid(m, x[0]);
    case Op::silu: return f32::silu(m, x[0]);
    case Op::gelu_tanh: return f32::gelu_tanh(m, x[0]);
    case Op::softplus: return f32::softplus(m, x[0]);
    case Op::sin: return f32::sin(m, x[0]);
    case Op::cos: return f32::cos(m, x[0]);
    case Op::gelu: return f32::gelu(m, x[0]);
    case Op::pow: return f32::pow(m, x[0], x[1]);
    case Op::tan: return f32::tan(m, x[0]);
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "vector math: no f32 emitter for " << ir::op_name(op);
  return nullptr;  // not reached: the check throws
}

}  // namespace

bool has_vector_math(Op op, DType dtype) { return is_floating(dtype) && ir::is_transcendental(op); }

llvm::Value* emit_vector_math(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes,
                              Op op, DType dtype, std::span<llvm::Value* const> operands) {
  TJ_INTERNAL_CHECK(has_vector_math(op, dtype))
      << "vector math: " << ir::op_name(op) << " on " << dtype_name(dtype);
  if (dtype == DType::f64) {
    MathBuilder m(builder, module, lanes, Evaluation::f64);
    return emit_f64(m, op, operands);
  }
  if (!has_native_f32(op)) {
    // Widened exactly, the f64 algorithm (within about 1 ulp of f64), rounded once: within
    // 0.5 ulp + 2^-28 of the f32 result.
    MathBuilder wide(builder, module, lanes, Evaluation::f64_for_f32);
    std::vector<llvm::Value*> widened;
    for (llvm::Value* operand : operands)
      widened.push_back(builder.CreateFPExt(operand, wide.real_type()));
    return builder.CreateFPTrunc(emit_f64(wide, op, widened), operands[0]->getType());
  }
  MathBuilder m(builder, module, lanes, Evaluation::f32);
  return emit_f32(m, op, operands);
}

}  // namespace tensorjit::codegen::vector_math
