#include "codegen/src/lower/emit_elementwise.hpp"

#include <cmath>

#include <llvm/IR/Intrinsics.h>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "codegen/src/lower/emit_philox.hpp"
#include "codegen/src/lower/storage_float.hpp"
#include "codegen/src/vector_math/vector_math.hpp"

namespace tensorjit::codegen {
namespace {

using ir::Op;

unsigned element_bits(DType dtype) { return static_cast<unsigned>(itemsize(dtype) * 8); }

// The dtype an op computes in: f32 for f16 and bf16 (dtype.hpp), the dtype itself otherwise.
DType compute_dtype(DType dtype) { return is_storage_float(dtype) ? DType::f32 : dtype; }

}  // namespace

llvm::Type* memory_element_type(llvm::LLVMContext& context, DType dtype) {
  switch (dtype) {
    case DType::f32: return llvm::Type::getFloatTy(context);
    case DType::f64: return llvm::Type::getDoubleTy(context);
    case DType::i32: return llvm::Type::getInt32Ty(context);
    case DType::i64: return llvm::Type::getInt64Ty(context);
    case DType::boolean: return llvm::Type::getInt8Ty(context);
    case DType::f16:
    case DType::bf16: return storage_element_type(context, dtype);
  }
  TJ_INTERNAL_CHECK(false) << "loop kernel: unknown dtype";
  return nullptr;  // not reached: the check throws
}

llvm::Type* register_type(llvm::LLVMContext& context, DType dtype, unsigned lanes) {
  llvm::Type* element = is_bool(dtype) ? llvm::Type::getInt1Ty(context)
                                       : memory_element_type(context, compute_dtype(dtype));
  return lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
}

bool is_per_lane_op(Op op, DType operand_dtype) {
  switch (op) {
    case Op::div: return !is_floating(operand_dtype);  // x86 has no vector integer division
    case Op::mod: return true;                         // integer division, or fmod for floats
    default: return false;
  }
}

// ---- constants ----

llvm::Value* ElementwiseEmitter::float_constant(DType dtype, double value) {
  llvm::Type* type = register_type(module_.getContext(), dtype, lanes_);
  if (dtype != DType::f64) return llvm::ConstantFP::get(type, ir::rounded_to(dtype, value));
  return llvm::ConstantFP::get(type, value);
}

llvm::Value* ElementwiseEmitter::integer_constant(DType dtype, std::int64_t value) {
  return llvm::ConstantInt::get(register_type(module_.getContext(), dtype, lanes_),
                                static_cast<std::uint64_t>(value), /*IsSigned=*/true);
}

llvm::Value* ElementwiseEmitter::boolean_constant(bool value) {
  return llvm::ConstantInt::get(register_type(module_.getContext(), DType::boolean, lanes_),
                                value ? 1 : 0, /*IsSigned=*/false);
}

llvm::Value* ElementwiseEmitter::constant(DType dtype, const ir::Scalar& value) {
  switch (dtype) {
    case DType::f32: return float_constant(dtype, ir::scalar_value<float>(value));
    case DType::f64: return float_constant(dtype, ir::scalar_value<double>(value));
    case DType::i32: return integer_constant(dtype, ir::scalar_value<std::int32_t>(value));
    case DType::i64: return integer_constant(dtype, ir::scalar_value<std::int64_t>(value));
    case DType::boolean: return integer_constant(dtype, ir::scalar_value<bool>(value) ? 1 : 0);
    case DType::f16:
    case DType::bf16: return float_constant(dtype, value.f);  // rounded as scalar_value<T> rounds
  }
  TJ_INTERNAL_CHECK(false) << "loop kernel: unknown dtype";
  return nullptr;  // not reached: the check throws
}

// ---- memory ----

llvm::Value* ElementwiseEmitter::from_memory(DType dtype, llvm::Value* value) {
  if (is_storage_float(dtype)) return widen_storage_float(builder_, dtype, value);
  if (!is_bool(dtype)) return value;
  return builder_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
}

llvm::Value* ElementwiseEmitter::to_memory(DType dtype, llvm::Value* value) {
  if (is_storage_float(dtype)) return narrow_storage_float(builder_, dtype, value);
  if (!is_bool(dtype)) return value;
  llvm::Type* bytes = memory_element_type(module_.getContext(), dtype);
  if (lanes_ != 1) bytes = llvm::FixedVectorType::get(bytes, lanes_);
  return builder_.CreateZExt(value, bytes);
}

// ---- casts ----

// ScalarOp<cast>: to bool is x != 0 (NaN -> true); from bool 0 or 1; float -> integer truncates
// and saturates, NaN -> 0 (exactly llvm.fptosi.sat); integers wrap; floats round to nearest.
llvm::Value* ElementwiseEmitter::emit_cast(DType to, DType from, llvm::Value* x) {
  if (to == from) return x;
  if (is_storage_float(to) || is_storage_float(from)) {  // through f32, as StoredOp<cast>
    llvm::Value* single = emit_cast(compute_dtype(to), compute_dtype(from), x);
    return is_storage_float(to) ? round_to_storage_float(builder_, to, single) : single;
  }
  llvm::Type* target = register_type(module_.getContext(), to, lanes_);
  if (is_bool(to)) {
    if (is_floating(from)) return builder_.CreateFCmpUNE(x, float_constant(from, 0.0));
    return builder_.CreateICmpNE(x, integer_constant(from, 0));
  }
  if (is_bool(from)) {
    if (is_floating(to)) return builder_.CreateUIToFP(x, target);
    return builder_.CreateZExt(x, target);
  }
  if (is_floating(from) && is_floating(to)) {
    return to == DType::f64 ? builder_.CreateFPExt(x, target) : builder_.CreateFPTrunc(x, target);
  }
  if (is_floating(from)) {
    return builder_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {target, x->getType()}, {x});
  }
  if (is_floating(to)) return builder_.CreateSIToFP(x, target);
  return element_bits(to) > element_bits(from) ? builder_.CreateSExt(x, target)
                                               : builder_.CreateTrunc(x, target);
}

// ---- unary ----

llvm::Value* ElementwiseEmitter::emit_unary(Op op, DType dtype, llvm::Value* x) {
  auto& b = builder_;
  const bool floating = is_floating(dtype);
  auto one = [&] { return float_constant(dtype, 1.0); };
  switch (op) {
    case Op::copy: return x;
    case Op::detach: return x;
    case Op::neg: return floating ? b.CreateFNeg(x) : b.CreateSub(integer_constant(dtype, 0), x);
    case Op::abs:
      if (floating) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());  // abs(MIN) == MIN
    case Op::sign: {
      // x > 0 ? 1 : x < 0 ? -1 : x (zeros and NaN give themselves).
      if (floating) {
        llvm::Value* negative = b.CreateSelect(b.CreateFCmpOLT(x, float_constant(dtype, 0.0)),
                                               float_constant(dtype, -1.0), x);
        return b.CreateSelect(b.CreateFCmpOGT(x, float_constant(dtype, 0.0)), one(), negative);
      }
      llvm::Value* negative = b.CreateSelect(b.CreateICmpSLT(x, integer_constant(dtype, 0)),
                                             integer_constant(dtype, -1), x);
      return b.CreateSelect(b.CreateICmpSGT(x, integer_constant(dtype, 0)),
                            integer_constant(dtype, 1), negative);
    }
    case Op::square: return floating ? b.CreateFMul(x, x) : b.CreateMul(x, x);
    case Op::sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case Op::rsqrt: return b.CreateFDiv(one(), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case Op::reciprocal: return b.CreateFDiv(one(), x);
    case Op::relu:
      // x > 0 ? x : 0, NaN kept: "unordered or greater" picks x exactly for NaN and positives.
      if (floating) return b.CreateSelect(b.CreateFCmpUGT(x, float_constant(dtype, 0.0)), x,
                                          float_constant(dtype, 0.0));
      return b.CreateSelect(b.CreateICmpSGT(x, integer_constant(dtype, 0)), x,
                            integer_constant(dtype, 0));
    case Op::logical_not: return b.CreateNot(x);
    // One vroundps/vrndscaleps each (roundeven: the immediate's ties-to-even mode, not MXCSR's);
    // integers are integral already.
    case Op::floor: return floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x) : x;
    case Op::ceil: return floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x) : x;
    case Op::round: return floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x) : x;
    case Op::trunc: return floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x) : x;
    case Op::isnan: return floating ? b.CreateFCmpUNO(x, x) : boolean_constant(false);
    case Op::isinf:
      if (!floating) return boolean_constant(false);
      return b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             float_constant(dtype, HUGE_VAL));
    case Op::isfinite:
      // |x| < inf is false for NaN (ordered) and for +-inf.
      if (!floating) return boolean_constant(true);
      return b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             float_constant(dtype, HUGE_VAL));
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "loop kernel: " << ir::op_name(op) << " is not a unary op";
  return nullptr;  // not reached: the check throws
}

// ---- binary ----

// Floor division: b == 0 -> 0, b == -1 -> -a (wraps), else the truncated quotient minus one when
// the remainder is nonzero and its sign differs from b's. The divisor is made safe (1) first so
// that no lane divides by zero or overflows INT_MIN / -1.
llvm::Value* ElementwiseEmitter::emit_integer_division(DType dtype, llvm::Value* a,
                                                       llvm::Value* d) {
  auto& b = builder_;
  llvm::Value* zero = integer_constant(dtype, 0);
  llvm::Value* is_zero = b.CreateICmpEQ(d, zero);
  llvm::Value* is_minus_one = b.CreateICmpEQ(d, integer_constant(dtype, -1));
  llvm::Value* safe =
      b.CreateSelect(b.CreateOr(is_zero, is_minus_one), integer_constant(dtype, 1), d);
  llvm::Value* quotient = b.CreateSDiv(a, safe);
  llvm::Value* remainder = b.CreateSRem(a, safe);
  llvm::Value* signs_differ = b.CreateICmpSLT(b.CreateXor(remainder, safe), zero);
  llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(remainder, zero), signs_differ);
  llvm::Value* floored = b.CreateSub(quotient, b.CreateZExt(adjust, quotient->getType()));
  llvm::Value* by_minus_one = b.CreateSelect(is_minus_one, b.CreateSub(zero, a), floored);
  return b.CreateSelect(is_zero, zero, by_minus_one);
}

// Python's %: b == 0 or b == -1 -> 0, else the remainder plus b when its sign differs from b's.
llvm::Value* ElementwiseEmitter::emit_integer_modulo(DType dtype, llvm::Value* a, llvm::Value* d) {
  auto& b = builder_;
  llvm::Value* zero = integer_constant(dtype, 0);
  llvm::Value* trivial =
      b.CreateOr(b.CreateICmpEQ(d, zero), b.CreateICmpEQ(d, integer_constant(dtype, -1)));
  llvm::Value* safe = b.CreateSelect(trivial, integer_constant(dtype, 1), d);
  llvm::Value* remainder = b.CreateSRem(a, safe);
  llvm::Value* signs_differ = b.CreateICmpSLT(b.CreateXor(remainder, safe), zero);
  llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(remainder, zero), signs_differ);
  llvm::Value* adjusted = b.CreateSelect(adjust, b.CreateAdd(remainder, safe), remainder);
  return b.CreateSelect(trivial, zero, adjusted);
}

// fmod (frem is fmod, exact), then a zero takes b's sign, else + b when the signs differ.
llvm::Value* ElementwiseEmitter::emit_float_modulo(DType dtype, llvm::Value* a, llvm::Value* d) {
  auto& b = builder_;
  llvm::Value* zero = float_constant(dtype, 0.0);
  llvm::Value* remainder = b.CreateFRem(a, d);
  llvm::Value* signs_differ =
      b.CreateXor(b.CreateFCmpOLT(remainder, zero), b.CreateFCmpOLT(d, zero));
  llvm::Value* adjusted = b.CreateSelect(signs_differ, b.CreateFAdd(remainder, d), remainder);
  return b.CreateSelect(b.CreateFCmpOEQ(remainder, zero), b.CreateCopySign(zero, d), adjusted);
}

// Repeated squaring unrolled over every exponent bit below the sign: the result only multiplies
// where the bit is set, so the extra squarings past the top bit change nothing (they wrap freely).
// A negative exponent gives 0, 1 for base 1, and +-1 by parity for base -1.
llvm::Value* ElementwiseEmitter::emit_integer_power(DType dtype, llvm::Value* base,
                                                    llvm::Value* exponent) {
  auto& b = builder_;
  llvm::Value* zero = integer_constant(dtype, 0);
  llvm::Value* one = integer_constant(dtype, 1);
  llvm::Value* result = one;
  llvm::Value* square = base;
  const unsigned bits = element_bits(dtype) - 1;
  for (unsigned bit = 0; bit < bits; ++bit) {
    llvm::Value* set = b.CreateICmpNE(
        b.CreateAnd(exponent, integer_constant(dtype, std::int64_t{1} << bit)), zero);
    result = b.CreateSelect(set, b.CreateMul(result, square), result);
    if (bit + 1 < bits) square = b.CreateMul(square, square);
  }
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(exponent, one), zero);
  llvm::Value* minus_one_power = b.CreateSelect(odd, integer_constant(dtype, -1), one);
  llvm::Value* negative_power =
      b.CreateSelect(b.CreateICmpEQ(base, one), one,
                     b.CreateSelect(b.CreateICmpEQ(base, integer_constant(dtype, -1)),
                                    minus_one_power, zero));
  return b.CreateSelect(b.CreateICmpSLT(exponent, zero), negative_power, result);
}

// Shifts by s outside [0, bits): left gives 0; right gives the sign fill, which is exactly an
// arithmetic shift by bits - 1. The unsigned compare rejects negative counts too.
llvm::Value* ElementwiseEmitter::emit_shift(Op op, DType dtype, llvm::Value* a, llvm::Value* s) {
  auto& b = builder_;
  const auto bits = static_cast<std::int64_t>(element_bits(dtype));
  llvm::Value* in_range = b.CreateICmpULT(s, integer_constant(dtype, bits));
  if (op == Op::left_shift) {
    llvm::Value* shifted = b.CreateShl(a, b.CreateSelect(in_range, s, integer_constant(dtype, 0)));
    return b.CreateSelect(in_range, shifted, integer_constant(dtype, 0));
  }
  return b.CreateAShr(a, b.CreateSelect(in_range, s, integer_constant(dtype, bits - 1)));
}

llvm::Value* ElementwiseEmitter::emit_binary(Op op, DType dtype, llvm::Value* a, llvm::Value* d) {
  auto& b = builder_;
  const bool floating = is_floating(dtype);
  const bool boolean = is_bool(dtype);
  switch (op) {
    case Op::add: return floating ? b.CreateFAdd(a, d) : b.CreateAdd(a, d);
    case Op::sub: return floating ? b.CreateFSub(a, d) : b.CreateSub(a, d);
    case Op::mul: return floating ? b.CreateFMul(a, d) : b.CreateMul(a, d);
    case Op::div: return floating ? b.CreateFDiv(a, d) : emit_integer_division(dtype, a, d);
    case Op::mod:
      return floating ? emit_float_modulo(dtype, a, d) : emit_integer_modulo(dtype, a, d);
    case Op::pow: return emit_integer_power(dtype, a, d);  // floats: vector_math
    case Op::maximum:
    case Op::minimum: {
      // (isnan(a) || a >= b) ? a : b, and <= for minimum: a NaN a wins, a NaN b loses the ordered
      // compare and is returned, a tie returns a.
      if (!floating) {
        llvm::Value* keep = op == Op::maximum ? b.CreateICmpSGE(a, d) : b.CreateICmpSLE(a, d);
        return b.CreateSelect(keep, a, d);
      }
      llvm::Value* ordered = op == Op::maximum ? b.CreateFCmpOGE(a, d) : b.CreateFCmpOLE(a, d);
      return b.CreateSelect(b.CreateOr(b.CreateFCmpUNO(a, a), ordered), a, d);
    }
    // C++ comparisons: ordered except != (UNE); signed integers; false < true for bool.
    case Op::eq: return floating ? b.CreateFCmpOEQ(a, d) : b.CreateICmpEQ(a, d);
    case Op::ne: return floating ? b.CreateFCmpUNE(a, d) : b.CreateICmpNE(a, d);
    case Op::lt:
      return floating  ? b.CreateFCmpOLT(a, d)
             : boolean ? b.CreateICmpULT(a, d)
                       : b.CreateICmpSLT(a, d);
    case Op::le:
      return floating  ? b.CreateFCmpOLE(a, d)
             : boolean ? b.CreateICmpULE(a, d)
                       : b.CreateICmpSLE(a, d);
    case Op::gt:
      return floating  ? b.CreateFCmpOGT(a, d)
             : boolean ? b.CreateICmpUGT(a, d)
                       : b.CreateICmpSGT(a, d);
    case Op::ge:
      return floating  ? b.CreateFCmpOGE(a, d)
             : boolean ? b.CreateICmpUGE(a, d)
                       : b.CreateICmpSGE(a, d);
    case Op::logical_and:
    case Op::bitwise_and: return b.CreateAnd(a, d);
    case Op::logical_or:
    case Op::bitwise_or: return b.CreateOr(a, d);
    case Op::bitwise_xor: return b.CreateXor(a, d);
    case Op::left_shift:
    case Op::right_shift: return emit_shift(op, dtype, a, d);
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "loop kernel: " << ir::op_name(op) << " is not a binary op";
  return nullptr;  // not reached: the check throws
}

llvm::Value* ElementwiseEmitter::emit(Op op, DType result_dtype, DType operand_dtype,
                                      std::span<llvm::Value* const> operands) {
  TJ_INTERNAL_CHECK(static_cast<int>(operands.size()) == ir::info(op).arity)
      << "loop kernel: " << ir::op_name(op) << " given " << operands.size() << " operands";
  if (op == Op::cast) return emit_cast(result_dtype, operand_dtype, operands[0]);
  if (op == Op::where) return builder_.CreateSelect(operands[0], operands[1], operands[2]);
  if (op == Op::philox) return emit_philox_word(builder_, operands[0], operands[1]);
  // f16 and bf16 operands are f32 values: the op computes in f32, its result is rounded back.
  const DType compute = compute_dtype(operand_dtype);
  llvm::Value* result = nullptr;
  if (vector_math::has_vector_math(op, compute)) {
    result = vector_math::emit_vector_math(builder_, module_, lanes_, op, compute, operands);
  } else if (ir::info(op).arity == 1) {
    result = emit_unary(op, compute, operands[0]);
  } else {
    result = emit_binary(op, compute, operands[0], operands[1]);
  }
  return is_storage_float(result_dtype) ? round_to_storage_float(builder_, result_dtype, result) : result;
}

}  // namespace tensorjit::codegen
