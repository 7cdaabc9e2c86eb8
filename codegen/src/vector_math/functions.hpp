// The f64 vector math emitters, one family per file. Each takes and returns f64 values of the
// builder's lane count. f32 sin and cos (f32_trig.cpp) also call them with the builder in
// Evaluation::f64_for_f32 (shorter polynomials, no double-double tails: the f64 value is good to
// about 2^-30, the f32 result to 0.5 ulp + 2^-6).
// The error bounds below are measured against a correctly rounded reference (docs/vector_math.md,
// tests/codegen/vector_math_*); special values (NaN, +-inf, +-0, subnormals, overflow and underflow
// thresholds) are those of glibc's libm.
#pragma once

#include <functional>

#include "codegen/src/vector_math/math_builder.hpp"

namespace tensorjit::codegen::vector_math {

// exp.cpp
llvm::Value* exp(MathBuilder& m, llvm::Value* x);
llvm::Value* exp2(MathBuilder& m, llvm::Value* x);
llvm::Value* expm1(MathBuilder& m, llvm::Value* x);
// exp(x.hi + x.lo) for |x.lo| <= 2^-40 |x.hi| (or x.lo == 0); x.hi may be +-inf or NaN.
llvm::Value* exp_double_double(MathBuilder& m, DoubleDouble x);
// exp(x.hi + x.lo) = p 2^k unscaled, p = 1 + t with |t| < 0.42 (t accurate relative to itself),
// k an i64 (x.hi is clamped to [lowest, 710] first; k >= -1077 for the default -746, which
// scale_by_power_of_two accepts).
struct ExpParts {
  llvm::Value* p;
  llvm::Value* t;
  llvm::Value* k;
};
ExpParts exp_parts(MathBuilder& m, DoubleDouble x, double lowest = -746.0);
// expm1 = 2^k p - 1 from the parts, for k <= 60 (without cancellation: one FMA).
llvm::Value* expm1_from_parts(MathBuilder& m, const ExpParts& parts);

// log.cpp
llvm::Value* log(MathBuilder& m, llvm::Value* x);
llvm::Value* log2(MathBuilder& m, llvm::Value* x);
llvm::Value* log1p(MathBuilder& m, llvm::Value* x);
// log(x) for finite x > 0 as a double-double with a relative error below 2^-64 (for pow); other
// inputs give unspecified values that the caller selects away.
DoubleDouble log_double_double(MathBuilder& m, llvm::Value* x);

// activations.cpp
llvm::Value* tanh(MathBuilder& m, llvm::Value* x);
llvm::Value* sigmoid(MathBuilder& m, llvm::Value* x);
llvm::Value* silu(MathBuilder& m, llvm::Value* x);
llvm::Value* softplus(MathBuilder& m, llvm::Value* x);
llvm::Value* gelu_tanh(MathBuilder& m, llvm::Value* x);
// 2v of gelu_tanh, v = c1 (x + c2 x^3), as a pair in m's precision (f64 and f32 alike); the low
// part is 0 where v overflowed. For x < -5 gelu_tanh is about x exp(2v), so one rounding of v
// would cost |2v| units of the last place: the pair carries that rounding.
DoubleDouble gelu_tanh_twice_argument(MathBuilder& m, llvm::Value* x);

// erf.cpp
llvm::Value* erf(MathBuilder& m, llvm::Value* x);
llvm::Value* gelu(MathBuilder& m, llvm::Value* x);

// trig.cpp
// `fast` with the lanes where `beyond` holds replaced by `slow()`, which is emitted in a block of
// its own (named `name` + `slow_label`) entered only when some lane needs it: the common case pays
// one branch. The same instructions at every lane count, so every width gives the same bits.
llvm::Value* with_slow_lanes(MathBuilder& m, llvm::Value* beyond, llvm::Value* fast, const char* name,
                             const char* slow_label, const std::function<llvm::Value*()>& slow);
llvm::Value* sin(MathBuilder& m, llvm::Value* x);
llvm::Value* cos(MathBuilder& m, llvm::Value* x);
llvm::Value* tan(MathBuilder& m, llvm::Value* x);

// atan.cpp
llvm::Value* atan(MathBuilder& m, llvm::Value* x);
llvm::Value* atan2(MathBuilder& m, llvm::Value* y, llvm::Value* x);

// pow.cpp
llvm::Value* pow(MathBuilder& m, llvm::Value* x, llvm::Value* y);
// What pow in f64 and in f32 (f32_pow.cpp) share: `log_magnitude` is log|x| as a pair for finite
// |x| > 0 (anything elsewhere); y log|x| is formed as an FMA product pair, `exp_of` of it taken,
// and the special cases of C99 Annex F applied as glibc does (the file's comment).
llvm::Value* pow_from_log(MathBuilder& m, llvm::Value* x, llvm::Value* y, DoubleDouble log_magnitude,
                          const std::function<llvm::Value*(DoubleDouble)>& exp_of);

}  // namespace tensorjit::codegen::vector_math
