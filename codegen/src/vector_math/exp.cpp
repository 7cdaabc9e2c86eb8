// exp, exp2, expm1 in f64.
//
// exp itself (f64 results): a table of 2^(j/16). n = round(x 16/ln2) = 16k + j with 0 <= j < 16,
// r = x - (n/16) ln2 with |r| <= ln2/32 (+ 2^-30 relative), exp(x) = 2^k 2^(j/16) exp(r). The
// table holds 2^(j/16) rounded to double (T) and its rounding error relative to it (t); exp(r) - 1
// = r + r^2 q(r) with q a degree-4 minimax fit (error 2^-56.3); the result is
// (T + T (p + t)) 2^k, one FMA then scale_by_power_of_two. r is rounded once (below 2^-59), and so
// are p and p + t; the term t p (below 2^-58.5) is left out: with q's error at most 2^-55.5
// relative before the final rounding, 0.17 ulp. The table and q are
// scripts/vector_math_constants.py's.
//
// exp's parts for the other functions (exp_parts, which keep t = exp(r) - 1 itself), exp2 and
// expm1: range reduction x = k ln2 + r with k = round(x / ln2), |r| <= ln2/2 (+ 2^-40). ln2 is
// split in two doubles (scripts/vector_math_constants.py): k * ln2_hi is subtracted by one FMA, exactly
// (the difference has at most 53 significant bits), and r_lo carries the rounding error of the
// second subtraction, so r + r_lo is x - k ln2 to about 2^-105.
// Polynomial: exp(r) - 1 = r + r^2 q(r), q the Taylor series 1/2! ... 1/13! (coefficients 1/n!
// rounded to double); the truncation error is below 2^-57 relative on |r| <= 0.3466, Horner's
// evaluation with FMAs adds below 2^-54. Reconstruction: 2^k by two exact power-of-two factors
// (scale_by_power_of_two), so overflow, the subnormal range and underflow round once.
// Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/functions.hpp"

#include <algorithm>
#include <array>

namespace tensorjit::codegen::vector_math {
namespace {

constexpr double kInverseLn2 = 0x1.71547652b82fep0;
constexpr double kLn2High = 0x1.62e42fefa39efp-1;
constexpr double kLn2Low = 0x1.abc9e3b39803fp-56;

constexpr double kRoundingShifter = 0x1.8p52;  // 1.5 * 2^52: the sum's ulp is 1

constexpr std::array<double, 16> kPowersHigh = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
constexpr std::array<double, 16> kPowersLow = {
    0x0.0p+0, 0x1.79aa65d837b6dp-54, -0x1.01b15eaa59348p-55, 0x1.68efde3a8a894p-54,
    0x1.34d754db0abb6p-55, 0x1.59f48a72a4c6dp-55, 0x1.690cebb7aafb0p-56, 0x1.063e1e21c5409p-54,
    -0x1.3b3efbf5e2228p-54, -0x1.b32dcb94da51dp-56, 0x1.db72fc1f0eab4p-55, 0x1.1affc2b91ce27p-56,
    0x1.c1a7792cb3387p-55, 0x1.36eae30af0cb3p-56, 0x1.4a385a63d07a7p-56, -0x1.ff7128fd391f0p-55};

// exp(x) overflows above 709.78 and rounds to 0 below -745.14: clamping to [-746, 710] keeps k in
// [-1077, 1025] (inside scale_by_power_of_two's range) and gives inf and 0 beyond. NaN passes.
constexpr double kExpLowest = -746.0;
constexpr double kExpHighest = 710.0;

struct Reduction {
  llvm::Value* k;     // i64
  llvm::Value* r;     // x - k ln2, rounded
  llvm::Value* r_lo;  // the rest
};

// Compare-and-select clamp: NaN compares false and passes unchanged.
llvm::Value* clamp(MathBuilder& m, llvm::Value* x, double lowest, double highest) {
  llvm::Value* below = m.select(m.less(x, m.real(lowest)), m.real(lowest), x);
  return m.select(m.greater(below, m.real(highest)), m.real(highest), below);
}

// For f32 sources r_lo is nullptr: r alone is within 2^-53 of x - k ln2.
Reduction reduce(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo) {
  auto k = m.round_to_integer(x, kInverseLn2);
  llvm::Value* minus_k = m.neg(k.value);
  llvm::Value* r_high = m.fma(minus_k, m.real(kLn2High), x);  // exact
  llvm::Value* r = m.fma(minus_k, m.real(kLn2Low), r_high);
  if (m.single_precision_source()) return {k.integer, r, nullptr};
  llvm::Value* r_lo = m.fma(minus_k, m.real(kLn2Low), m.sub(r_high, r));
  if (x_lo != nullptr) r_lo = m.add(r_lo, x_lo);
  return {k.integer, r, r_lo};
}

// exp(r + r_lo) - 1 for |r| <= 0.35, |r_lo| <= 2^-40: with t0 = exp(r) - 1 = r + r^2 q(r), it is
// t0 + r_lo (1 + t0) up to r_lo^2 / 2 < 2^-81. For f32 sources (r_lo nullptr) q stops at 1/8!:
// truncation below 2^-31 relative.
llvm::Value* exp_minus_one_reduced(MathBuilder& m, llvm::Value* r, llvm::Value* r_lo) {
  if (r_lo == nullptr) {
    llvm::Value* q = m.polynomial(
        r, {0x1.0000000000000p-1, 0x1.5555555555555p-3, 0x1.5555555555555p-5,
            0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13,
            0x1.a01a01a01a01ap-16});
    return m.fma(m.mul(r, r), q, r);
  }
  llvm::Value* q = m.polynomial(
      r, {0x1.0000000000000p-1, 0x1.5555555555555p-3, 0x1.5555555555555p-5, 0x1.1111111111111p-7,
          0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16,
          0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26,
          0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33});
  llvm::Value* tail = m.mul(m.mul(r, r), q);
  llvm::Value* low_part = m.fma(r_lo, m.add(r, tail), r_lo);
  return m.add(r, m.add(tail, low_part));
}

}  // namespace

// For f32 sources the clamp is [max(lowest, -200), 90]: beyond, every f32 result the callers form
// (exp itself, or a product with an f32 below 2^128 = e^88.7) is 0 or inf already, and k stays in
// [-289, 130] for the one-factor scaling.
ExpParts exp_parts(MathBuilder& m, DoubleDouble x, double lowest) {
  const bool single = m.single_precision_source();
  if (single) x.lo = nullptr;
  llvm::Value* clamped = clamp(m, x.hi, single ? std::max(lowest, -200.0) : lowest,
                               single ? 90.0 : kExpHighest);
  // A clamped argument's low part means nothing (and may be huge or NaN): dropped.
  llvm::Value* lo = x.lo == nullptr ? nullptr : m.select(m.equal(clamped, x.hi), x.lo, m.real(0.0));
  Reduction reduced = reduce(m, clamped, lo);
  llvm::Value* t = exp_minus_one_reduced(m, reduced.r, reduced.r_lo);
  return {m.add(m.real(1.0), t), t, reduced.k};
}

llvm::Value* expm1_from_parts(MathBuilder& m, const ExpParts& parts) {
  auto& b = m.ir();
  llvm::Value* k = b.CreateSelect(b.CreateICmpSGT(parts.k, m.integer(60)), m.integer(60), parts.k);
  llvm::Value* power = m.from_bits(b.CreateShl(b.CreateAdd(k, m.integer(1023)), 52));
  return m.fma(power, parts.t, m.sub(power, m.real(1.0)));
}

llvm::Value* exp_double_double(MathBuilder& m, DoubleDouble x) {
  ExpParts parts = exp_parts(m, x);
  return m.scale_by_power_of_two(parts.p, parts.k);
}

// The clamp as exp_parts' keeps n in [-17220, 16388], k in [-1077, 1024].
llvm::Value* exp(MathBuilder& m, llvm::Value* x) {
  if (m.single_precision_source()) return exp_double_double(m, {x, nullptr});
  auto& b = m.ir();
  llvm::Value* clamped = clamp(m, x, kExpLowest, kExpHighest);
  // shifted = 1.5 2^52 + n exactly: its low four bits are j's; n/16 = shifted/16 - 1.5 2^48 is
  // exact, and so is x - (n/16) ln2_hi as in reduce().
  llvm::Value* shifted = m.fma(clamped, m.real(16 * kInverseLn2), m.real(kRoundingShifter));
  llvm::Value* sixteenths = m.fma(shifted, m.real(1.0 / 16), m.real(-kRoundingShifter / 16));
  llvm::Value* r_high = m.fma(sixteenths, m.real(-kLn2High), clamped);
  llvm::Value* r = m.fma(sixteenths, m.real(-kLn2Low), r_high);
  llvm::Value* bits = m.to_bits(shifted);
  llvm::Value* power_high = m.lookup(kPowersHigh, bits);
  llvm::Value* power_low = m.lookup(kPowersLow, bits);
  // Estrin's scheme: (c0 + c1 r) + r^2 (c2 + c3 r) + r^4 c4.
  llvm::Value* r2 = m.mul(r, r);
  llvm::Value* q = m.fma(m.mul(r2, r2), m.real(0x1.6c185de4d8279p-10),
                         m.fma(r2, m.fma(r, m.real(0x1.11123aafc4d1cp-7), m.real(0x1.555555545eb5bp-5)),
                               m.fma(r, m.real(0x1.555555548f86cp-3), m.real(0x1.0000000000005p-1))));
  llvm::Value* p = m.fma(r2, q, r);
  llvm::Value* scaled = m.fma(power_high, m.add(p, power_low), power_high);
  // k = floor(n/16): vscalef takes n/16 itself.
  llvm::Value* k = b.CreateAShr(b.CreateSub(bits, m.to_bits(m.real(kRoundingShifter))), 4);
  return m.scale_by_power_of_two(scaled, k, sixteenths);
}

// exp2(x) = 2^k * exp(r ln2) with k = round(x) and r = x - k exact; r ln2 is formed as a
// double-double (FMA product plus r * ln2_lo) and goes through exp's polynomial. Clamping to
// [-1078, 1026] gives 0 and inf beyond the thresholds (-1075, 1024).
llvm::Value* exp2(MathBuilder& m, llvm::Value* x) {
  const bool single = m.single_precision_source();
  llvm::Value* clamped = single ? clamp(m, x, -160.0, 130.0) : clamp(m, x, -1078.0, 1026.0);
  auto k = m.round_to_integer(clamped);
  llvm::Value* r = m.sub(clamped, k.value);
  if (single) {
    llvm::Value* p = m.add(m.real(1.0), exp_minus_one_reduced(m, m.mul(r, m.real(kLn2High)), nullptr));
    return m.scale_by_power_of_two(p, k.integer);
  }
  DoubleDouble product = m.two_product(r, m.real(kLn2High));
  llvm::Value* lo = m.fma(r, m.real(kLn2Low), product.lo);
  llvm::Value* p = m.add(m.real(1.0), exp_minus_one_reduced(m, product.hi, lo));
  return m.scale_by_power_of_two(p, k.integer);
}

// expm1(x) = 2^k (t + 1) - 1 with t = exp(r) - 1, formed as fma(2^k, t, 2^k - 1): 2^k - 1 is exact
// for the k of |x| <= 40 and the FMA rounds once, so there is no cancellation when k is 0 (x near
// 0, t is the result) or small. Above 40 the -1 is below half an ulp and the result is exp's
// reconstruction; below -40 the result rounds to -1. +-0 and NaN are returned as they are.
llvm::Value* expm1(MathBuilder& m, llvm::Value* x) {
  llvm::Value* clamped =
      clamp(m, x, -40.0, m.single_precision_source() ? 90.0 : kExpHighest);
  ExpParts parts = exp_parts(m, {clamped, nullptr});
  llvm::Value* large = m.scale_by_power_of_two(parts.p, parts.k);
  llvm::Value* result =
      m.select(m.greater(clamped, m.real(40.0)), large, expm1_from_parts(m, parts));
  return m.select(m.equal(x, m.real(0.0)), x, result);
}

}  // namespace tensorjit::codegen::vector_math
