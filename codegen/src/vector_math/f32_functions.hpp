// The native f32 vector math emitters: f32 values at the kernel's full width (16 lanes of a zmm),
// with no widening to f64. Each takes and returns f32 values of the builder's lane count
// (Evaluation::f32). Where one f32 rounding would cost too much, the error is carried in a second
// f32 (FMA products, Fast2Sum) instead of in f64. Polynomial coefficients and constant splits:
// scripts/vector_math_f32_fit.py. Bounds (exp, exp2, log, log2 <= 1 ulp; the others <= 2 ulp)
// and special values (those of glibc): docs/vector_math.md, tests/codegen/vector_math.
#pragma once

#include "codegen/src/vector_math/math_builder.hpp"

namespace tensorjit::codegen::vector_math::f32 {

// f32_exp.cpp
// exp(x + x_lo) = (1 + p) 2^k unscaled: p = r + r^2 q(r) rounded once (|p| < 0.42), so 1 + p is
// within 2^-26 (absolute, half an ulp of p at most) of exp's value; k an i32.
// x is clamped to [lowest, 89] first (NaN passes), so k lies in [round(lowest / ln2), 128];
// x_lo may be nullptr (zero), and must be below 2^-20 |x|.
struct ExpParts {
  llvm::Value* p;
  llvm::Value* r;     // p before its rounding: r + tail (|tail| < 0.07), for expm1
  llvm::Value* tail;
  llvm::Value* k;
  llvm::Value* k_real;  // k as an f32 (exact), for scale_by_power_of_two
};
// With `non_positive` (x <= 0 or NaN, as -|a|) the clamp at 89 is left out.
ExpParts exp_parts(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo, double lowest,
                   bool non_positive = false);
// (1 + p) 2^k rounded once (twice for subnormal results), for k in [-180, 128].
llvm::Value* scale(MathBuilder& m, const ExpParts& parts);
// exp(x + x_lo) = high (1 + s) 2^k unscaled, by a table of 2^(j/32): high = 2^(j/32) rounded to
// f32 (in [1, 2)), s = p + e_j (|s| < 0.011) with e_j the entry's rounding error, so that
// high + high s is within about 2^-29 relative of exp(x + x_lo) 2^-k. x is clamped to
// [lowest, 89] (no upper clamp with `non_positive`: the same IR for the same x, so that kernels
// computing two such functions of one value, sigmoid(x) and silu(x), share it after LLVM's common
// subexpression elimination), k in [floor(lowest / ln2) - 1, 128]; x_lo may be nullptr (zero),
// must be below 2^-16 in magnitude (it joins r, |r| <= ln2/64, whose cubic keeps 2^-30.6 to
// there), and is kept in clamped lanes (callers replace those).
struct TableExpParts {
  llvm::Value* high;
  llvm::Value* s;
  llvm::Value* k;       // i32
  llvm::Value* k_real;  // n/32, whose floor is k (for scale_by_power_of_two)
};
TableExpParts table_exp_parts(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo, double lowest,
                              bool non_positive = false);
llvm::Value* exp(MathBuilder& m, llvm::Value* x);
// exp(x) as hi + lo: hi is exp(x) (the same bits), lo its rounding error to about 2^-26 of hi
// (not exact where hi is subnormal, where it is below 2^-149 anyway).
DoubleDouble exp_pair(MathBuilder& m, llvm::Value* x);
llvm::Value* exp2(MathBuilder& m, llvm::Value* x);
llvm::Value* expm1(MathBuilder& m, llvm::Value* x);

// f32_log.cpp
llvm::Value* log(MathBuilder& m, llvm::Value* x);
llvm::Value* log2(MathBuilder& m, llvm::Value* x);
llvm::Value* log1p(MathBuilder& m, llvm::Value* x);
// log1p(x + x_lo) for |x_lo| <= ulp(x): x_lo joins the rounding error of 1 + x.
llvm::Value* log1p_of_pair(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo);

// f32_tanh.cpp
llvm::Value* tanh(MathBuilder& m, llvm::Value* x);

// f32_activations.cpp
llvm::Value* sigmoid(MathBuilder& m, llvm::Value* x);
llvm::Value* silu(MathBuilder& m, llvm::Value* x);
llvm::Value* softplus(MathBuilder& m, llvm::Value* x);

// f32_gelu_tanh.cpp (a table of pieces on [-2.875, 5.125), exp below)
llvm::Value* gelu_tanh(MathBuilder& m, llvm::Value* x);

// f32_erf.cpp
llvm::Value* erf(MathBuilder& m, llvm::Value* x);

// f32_gelu.cpp (the erf form; the ops.def constant 1/sqrt 2 rounded to f32; a table of pieces on
// [-4.125, 3.875), the erfc form outside)
llvm::Value* gelu(MathBuilder& m, llvm::Value* x);

// f32_pow.cpp (C99 Annex F's special cases, as glibc's powf)
llvm::Value* pow(MathBuilder& m, llvm::Value* x, llvm::Value* y);

// f32_trig.cpp (beyond |x| = 2^20 through the f64 sin and cos of functions.hpp)
llvm::Value* sin(MathBuilder& m, llvm::Value* x);
llvm::Value* cos(MathBuilder& m, llvm::Value* x);
llvm::Value* tan(MathBuilder& m, llvm::Value* x);

}  // namespace tensorjit::codegen::vector_math::f32
