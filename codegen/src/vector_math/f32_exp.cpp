// exp, exp2 and expm1 in native f32, and the exp parts the other f32 emitters build on: exp
// itself and the sigmoid family take exp by a table of 2^(j/32) (table_exp_parts, below); exp2,
// expm1, softplus, pow and gelu take exp_parts, described here.
//
// Range reduction: k = round(x / ln2), r = x - k ln2 with ln2 = ln2_hi + ln2_lo, an f32
// Cody-Waite split (scripts/vector_math_f32_fit.py). ln2_hi is ln 2 rounded to f32 (ulp 2^-24), so
// x - k ln2_hi is x itself (k == 0) or a multiple of 2^-24 below 0.5 in magnitude: the first FMA
// is exact. The second rounds; r_lo is its error (FMA), so r + r_lo is x - k ln2 to about 2^-45.
// Polynomial: exp(r) = 1 + r + r^2 q(r), q of degree 4, a near-minimax fit of exp's relative error
// on |r| <= ln2/2 with f32 coefficients (2^-28.3).
// Reconstruction: p = r + (r^2 q + r_lo) rounded once, and exp = round(1 + p) 2^k
// (MathBuilder::scale_by_power_of_two: one vscalef, or two exact-or-final power-of-two factors):
// |p| < 0.42, so p's rounding is at most 2^-26, a quarter of an ulp of a result below 1 and an
// eighth above; results near overflow or in the subnormal range need no intermediate that
// overflows or underflows, and a subnormal result is rounded a second time. (1 + r by Fast2Sum,
// its error added to the tail, kept the sum exact to 2^-27 before its one rounding: three more
// additions, on the two pipes that also run vscalef, for 0.64 -> 0.84 ulp on exp's inputs in
// bench/vecmath; docs/vector_math.md has the measured bounds and times.)
// exp2 reduces by k = round(x) exactly and takes r ln2 as an FMA product pair through the same
// parts; expm1 forms 2^k (hi + lo) - 1 without cancellation (below).
// Measured errors: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <limits>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kInverseLn2 = 0x1.715476p+0;
constexpr double kLn2High = 0x1.62e43p-1;
constexpr double kLn2Low = -0x1.05c61p-29;
// exp(x) overflows above 88.72: clamping to 89 keeps k at most 128 and gives inf beyond.
constexpr double kHighest = 89.0;
// exp(x) rounds to 0 below -103.98.
constexpr double kExpLowest = -105.0;
// exp2(x) overflows from 128 and rounds to 0 below -150: clamped to [-160, 130] (NaN passes).
constexpr double kExp2Lowest = -160.0;
constexpr double kExp2Highest = 130.0;
// expm1(x) rounds to -1 below -17.4: its exp argument is clamped at -40 (k >= -58).
constexpr double kExpm1Lowest = -40.0;
// Up to k = 24 expm1's -1 goes through an FMA (below); beyond, it is at most a quarter of an ulp
// and the result is exp's.
constexpr int kExpm1LargestFmaExponent = 24;

// Compare-and-select clamp: NaN compares false and passes unchanged. An infinite `highest` is no
// upper clamp.
llvm::Value* clamp(MathBuilder& m, llvm::Value* x, double lowest, double highest) {
  llvm::Value* below = m.select(m.less(x, m.real(lowest)), m.real(lowest), x);
  if (highest == std::numeric_limits<double>::infinity()) return below;
  return m.select(m.greater(below, m.real(highest)), m.real(highest), below);
}

}  // namespace

namespace {

struct Reduced {
  llvm::Value* clamped;
  llvm::Value* k;  // i32
  llvm::Value* r;
  llvm::Value* r_high;
  llvm::Value* minus_k;
};

Reduced reduce(MathBuilder& m, llvm::Value* x, double lowest, bool non_positive) {
  llvm::Value* clamped =
      clamp(m, x, lowest, non_positive ? std::numeric_limits<double>::infinity() : kHighest);
  auto k = m.round_to_integer(clamped, kInverseLn2);
  llvm::Value* minus_k = m.neg(k.value);
  llvm::Value* r_high = m.fma(minus_k, m.real(kLn2High), clamped);  // exact
  return {clamped, k.integer, m.fma(minus_k, m.real(kLn2Low), r_high), r_high, minus_k};
}

// q(r) of exp(r) = 1 + r + r^2 q(r), by Estrin's scheme on r and r^2 (which the caller needs
// anyway): (c0 + c1 r) + r^2 ((c2 + c3 r) + c4 r^2) is three FMAs deep after r^2 where Horner's
// rule is four after r. Same count, shorter chain: in cache W2 0.609 -> 0.572 ns and tanh 0.297
// -> 0.286 (vecmath_kernels, builds alternated), exp alone unchanged.
llvm::Value* exp_polynomial(MathBuilder& m, llvm::Value* r, llvm::Value* r2) {
  llvm::Value* low = m.fma(r, m.real(0x1.555492p-3), m.real(0x1.fffffcp-2));
  llvm::Value* high = m.fma(r2, m.real(0x1.6a5198p-10), m.fma(r, m.real(0x1.12397cp-7), m.real(0x1.5558acp-5)));
  return m.fma(r2, high, low);
}

}  // namespace

ExpParts exp_parts(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo, double lowest,
                   bool non_positive) {
  Reduced reduced = reduce(m, x, lowest, non_positive);
  llvm::Value* r = reduced.r;
  // r_lo < 2^-26 joins the tail as it is (exp(r + r_lo) = exp(r) + r_lo to 2^-27.5 relative).
  llvm::Value* r_lo = m.fma(reduced.minus_k, m.real(kLn2Low), m.sub(reduced.r_high, r));
  llvm::Value* r2 = m.mul(r, r);
  llvm::Value* tail = m.fma(r2, exp_polynomial(m, r, r2), r_lo);
  if (x_lo != nullptr) {
    // exp(r + x_lo) = (1 + r + tail)(1 + x_lo) to x_lo^2: x_lo (1 + r + tail) joins the tail
    // (r + tail rounded once more inside a term below 2^-20, so that p is still rounded once);
    // a clamped argument's low part means nothing and is dropped.
    llvm::Value* kept = m.select(m.equal(reduced.clamped, x), x_lo, m.real(0.0));
    tail = m.add(tail, m.fma(kept, m.add(r, tail), kept));
  }
  return {m.add(r, tail), r, tail, reduced.k, m.neg(reduced.minus_k)};
}

llvm::Value* scale(MathBuilder& m, const ExpParts& parts) {
  return m.scale_by_power_of_two(m.add(m.real(1.0), parts.p), parts.k, parts.k_real);
}

namespace {

// 2^(j/32) rounded to f32, and its relative rounding error (2^(j/32) - hi) / hi rounded to f32:
// scripts/vector_math_f32_fit.py, exp_powers().
constexpr double kPowersHigh[] = {
    0x1p+0, 0x1.059b0ep+0, 0x1.0b5586p+0, 0x1.11301ep+0,
    0x1.172b84p+0, 0x1.1d4874p+0, 0x1.2387a6p+0, 0x1.29e9ep+0,
    0x1.306fep+0, 0x1.371a74p+0, 0x1.3dea64p+0, 0x1.44e086p+0,
    0x1.4bfdaep+0, 0x1.5342b6p+0, 0x1.5ab07ep+0, 0x1.6247ecp+0,
    0x1.6a09e6p+0, 0x1.71f75ep+0, 0x1.7a1148p+0, 0x1.82589ap+0,
    0x1.8ace54p+0, 0x1.93737cp+0, 0x1.9c4918p+0, 0x1.a5503cp+0,
    0x1.ae89fap+0, 0x1.b7f77p+0, 0x1.c199bep+0, 0x1.cb720ep+0,
    0x1.d5818ep+0, 0x1.dfc974p+0, 0x1.ea4afap+0, 0x1.f50766p+0,
};
constexpr double kPowersError[] = {
    0x0p+0, -0x1.947414p-25, 0x1.8d96d4p-25, -0x1.dda2fcp-25,
    -0x1.9c0c22p-27, -0x1.a2fbb2p-25, 0x1.964904p-25, -0x1.2b0dbcp-25,
    0x1.125002p-25, -0x1.cde8cep-26, 0x1.370be4p-25, 0x1.336de2p-30,
    -0x1.0a355p-25, -0x1.c541b4p-26, -0x1.00d8acp-27, -0x1.6cb284p-25,
    0x1.26055cp-26, 0x1.8b2bb8p-26, -0x1.05cb44p-25, -0x1.1c2142p-26,
    0x1.67a1cap-28, -0x1.348e56p-25, 0x1.a3b5e4p-28, -0x1.0b7ec8p-25,
    -0x1.f9c304p-27, -0x1.e4c886p-26, -0x1.6961b4p-28, -0x1.b5151ep-28,
    -0x1.a5217cp-28, -0x1.ab7132p-26, 0x1.61428ep-28, -0x1.2ad5f8p-27,
};

}  // namespace

// exp by a table of 2^(j/32): n = round(x 32/ln2) = 32k + j (one FMA with 1.5 2^23, whose low
// five bits are j), r = x - (n/32) ln2 with n/32 exact and (n/32) ln2_hi subtracted exactly by
// an FMA (|r| <= ln2/64 and x, n/32 ln2_hi multiples of 2^-30 at least where n != 0), then
// rounded once more by ln2_lo (below 2^-31 relative of the result). exp(r) - 1 = p =
// r + r^2 (1/2 + r/6) (Taylor; the rest below r^4/24 < 2^-30.7), and
// exp(x) = 2^k hi (1 + e_j)(1 + p) = hi (1 + s) 2^k with s = p + e_j (the term e_j p, below
// 2^-31, left out). vscalef takes n/32, whose floor is k. With x_lo, r = r_high +
// (x_lo - (n/32) ln2_lo), one rounding as without it, off the chain from n to r_high.
TableExpParts table_exp_parts(MathBuilder& m, llvm::Value* x, llvm::Value* x_lo, double lowest,
                              bool non_positive) {
  auto& b = m.ir();
  llvm::Value* clamped =
      clamp(m, x, lowest, non_positive ? std::numeric_limits<double>::infinity() : kHighest);
  llvm::Value* shifter = m.real(0x1.8p23);
  llvm::Value* shifted = m.fma(clamped, m.real(32 * kInverseLn2), shifter);
  llvm::Value* thirty_seconds = m.fma(shifted, m.real(1.0 / 32), m.real(-0x1.8p23 / 32));
  llvm::Value* r = m.fma(thirty_seconds, m.real(-kLn2High), clamped);  // exact
  r = x_lo == nullptr ? m.fma(thirty_seconds, m.real(-kLn2Low), r)
                      : m.add(r, m.fma(thirty_seconds, m.real(-kLn2Low), x_lo));
  llvm::Value* bits = m.to_bits(shifted);
  llvm::Value* high = m.lookup(kPowersHigh, bits);
  llvm::Value* error = m.lookup(kPowersError, bits);
  llvm::Value* p = m.fma(m.mul(r, r), m.fma(r, m.real(0x1.555556p-3), m.real(0.5)), r);
  llvm::Value* s = m.add(p, error);
  llvm::Value* k = b.CreateAShr(b.CreateSub(bits, m.to_bits(shifter)), 5);
  return {high, s, k, thirty_seconds};
}

// exp(x) = fma(hi, s, hi) 2^k of the table's parts, rounded once (a second time for subnormal
// results, as scale_by_power_of_two's): within half an ulp and about 2^-29 relative. Against
// exp_parts' degree-4 polynomial without a table this is four instructions fewer per vector.
llvm::Value* exp(MathBuilder& m, llvm::Value* x) {
  TableExpParts parts = table_exp_parts(m, x, nullptr, kExpLowest);
  return m.scale_by_power_of_two(m.fma(parts.high, parts.s, parts.high), parts.k, parts.k_real);
}

DoubleDouble exp_pair(MathBuilder& m, llvm::Value* x) {
  ExpParts parts = exp_parts(m, x, nullptr, kExpLowest);
  DoubleDouble sum = m.fast_two_sum(m.real(1.0), parts.p);  // |p| < 0.42
  return {m.scale_by_power_of_two(sum.hi, parts.k, parts.k_real),
          m.scale_by_power_of_two(sum.lo, parts.k, parts.k_real)};
}

// exp2(x) = 2^k exp(r ln2), k = round(x), r = x - k exact (|r| <= 1/2); r ln2 is an FMA product
// pair (ln2_hi, ln2_lo of exp's split) entering exp's parts as x + x_lo.
llvm::Value* exp2(MathBuilder& m, llvm::Value* x) {
  llvm::Value* clamped = clamp(m, x, kExp2Lowest, kExp2Highest);
  auto k = m.round_to_integer(clamped);
  llvm::Value* r = m.sub(clamped, k.value);
  DoubleDouble product = m.two_product(r, m.real(kLn2High));
  llvm::Value* product_lo = m.fma(r, m.real(kLn2Low), product.lo);
  ExpParts parts = exp_parts(m, product.hi, product_lo, -1.0);  // |r ln2| <= 0.35: no clamp
  parts.k = m.ir().CreateAdd(k.integer, parts.k);
  parts.k_real = m.add(k.value, parts.k_real);
  return scale(m, parts);
}

// expm1(x) = 2^k (hi + lo) - 1 = fma(2^k, lo, fma(2^k, hi, -1)) with hi = 1 + r by Fast2Sum and
// lo its error + tail (not exp's p: 2^k p - 1 would carry p's rounding, 2^-26, into results
// near 1/2, a whole ulp there). For 0 <= k <= 23 the inner FMA is exact (2^k hi - 1 has no more
// significant bits than 2^k hi; for k == 0 by Sterbenz), so the result rounds once, with no
// cancellation near 0 (there hi - 1 + lo is r + r^2 q exactly but for a rounding of the tail);
// for k < 0 the inner FMA rounds a value in [-1, -0.29] once more, and for k = 24 (2^k hi has an
// ulp of 2) a value near 2^24 once more. Above k = 24 it is exp's result. +-0 and NaN are
// returned as they are.
llvm::Value* expm1(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  ExpParts parts = exp_parts(m, x, nullptr, kExpm1Lowest);
  llvm::Value* largest = m.integer(kExpm1LargestFmaExponent);
  llvm::Value* large = b.CreateICmpSGT(parts.k, largest);
  llvm::Value* power = m.power_of_two(b.CreateSelect(large, largest, parts.k));
  DoubleDouble one_plus_r = m.fast_two_sum(m.real(1.0), parts.r);  // |r| < 1
  llvm::Value* lo = m.add(one_plus_r.lo, parts.tail);
  llvm::Value* near = m.fma(power, lo, m.fma(power, one_plus_r.hi, m.real(-1.0)));
  llvm::Value* result = m.select(large, scale(m, parts), near);
  return m.select(m.equal(x, m.real(0.0)), x, result);
}

}  // namespace tensorjit::codegen::vector_math::f32
