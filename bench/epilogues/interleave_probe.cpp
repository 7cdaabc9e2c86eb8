// interleave_probe: would a micro-kernel that runs the PREVIOUS tile's epilogue inside the CURRENT
// tile's k loop (software pipelining) make the fused layer gelu_tanh(x·W + b) + r cost
// max(FMA-pipe work, other work) instead of product + epilogue? A feasibility measurement, not a
// product feature: nothing here is used by the library.
//
// Per MR x 32 f32 micro-tile (AVX-512, 2*MR accumulators, k = 64):
//   bare  the k loop (2 B loads, MR broadcasts, 2*MR FMAs per k) and the tile stored;
//   A     today's shape: bare, then the epilogue over the stored tile (load C, + bias,
//         activation, + residual, store);
//   B     interleaved: the k loop of tile i is unrolled by P and each unrolled step also runs one
//         epilogue vector of tile i-1 (P = 64 / (2 MR)); the last tile's epilogue is drained at
//         the end. Same operations in the same order per element as A: the output is compared
//         with memcmp.
//   C3/C4 (gelu_tanh only) B with the epilogue software-pipelined in 3 or 4 stages, one stage
//         of consecutive vectors per unrolled step (memcmp against A as well).
// Epilogues: gelu_tanh(c + b) + r (a port of the JIT's gelu_tanh as of ef79ea2, by exp and a
// corrected division in codegen/src/vector_math/f32_activations.cpp; since then it takes a table
// of pieces on most inputs, f32_gelu_tanh.cpp; its accuracy checked below), relu(c + b) + r,
// c * 1.0001 + b + r (the interleaving's own cost: same loads and stores, next to no arithmetic)
// and, timing only, gelu_tanh's operation mix in short dependency chains. "alone" is the
// epilogue without the product, reading the stored C and writing another buffer (at the real
// size C then comes from memory: more traffic than A's in-place epilogue on a tile in L1).
// Section "pipes": which pipes gelu's operations share with FMAs, gelu_tanh's throughput and
// latency.
// Settings: "cache": one A panel (64 x MR), a B panel of 64 x 512 (16 tiles), an MR x 512 output
// and residual, repeated; "real": m = 4096 (rounded up to a multiple of MR), k = 64, n = 4096,
// 64 MiB residual and output, plain stores. Single thread, thread CPU time, medians of --rounds
// rounds, the variants alternated in each round; cycles from a calibrated chain of dependent adds.
//
// Run: ninja -C build interleave_probe && taskset -c 1 build/bench/epilogues/interleave_probe
//      [--rounds 11] [--section all|accuracy|check|pipes|cache|real] [--prefetch]
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr int kK = 64;      // the product's depth
constexpr int kNr = 32;     // micro-tile columns: two zmm vectors
constexpr int kLanes = 16;

// ---- gelu_tanh: f32_activations.cpp gelu_tanh -> times_sigmoid -> one_plus_exp ->
// f32_exp.cpp table_exp_parts, with math_builder.cpp's two_product (mul, fmsub), fast_two_sum,
// scale_by_power_of_two (vscalefps) and lookup (vpermi2ps over 32 entries). Selects are written
// as LLVM lowers them (min/max for the clamps, masked moves).

constexpr double kC1 = static_cast<float>(0.79788456080286535588);  // ir::kSqrt2OverPi<float>
constexpr double kC2 = static_cast<float>(0.044715);                // ir::kGeluTanhCubic<float>
constexpr double kA = 2.0 * kC1 * kC2;
constexpr float kAHi = static_cast<float>(kA);
constexpr float kALo = static_cast<float>(kA - static_cast<float>(kA));
constexpr float kInverseLn2 = 0x1.715476p+0f;
constexpr float kLn2High = 0x1.62e43p-1f;
constexpr float kLn2Low = -0x1.05c61p-29f;

// f32_exp.cpp's table (scripts/vector_math_f32_fit.py, exp_powers): 2^(j/32) rounded to f32, and
// its relative rounding error rounded to f32, here from long double.
struct PowerTable {
  alignas(64) float high[32];
  alignas(64) float error[32];
  PowerTable() {
    for (int j = 0; j < 32; ++j) {
      const long double exact = std::exp2l(j / 32.0L);
      high[j] = static_cast<float>(exact);
      error[j] = static_cast<float>((exact - high[j]) / high[j]);
    }
  }
};
const PowerTable kPowerTable;
const float* const kPowersHigh = kPowerTable.high;
const float* const kPowersError = kPowerTable.error;

inline __m512 splat(float v) { return _mm512_set1_ps(v); }

// Three stages with a few values between them (variant C below software-pipelines them; the
// composition gelu_tanh is the same instructions): -|2v| as a pair, exp's parts, the quotient.
struct GeluReduced {
  __m512 x, y_hi, y_lo;
};
struct GeluReduction {
  __m512 x, y_hi, thirty_seconds, r, shifted;
};
struct GeluExp {
  __m512 x, y_hi, thirty_seconds, high, small_s, e;
};

[[gnu::always_inline]] inline GeluReduced gelu_stage1(__m512 x) {
  const __m512 magnitude_bits = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  // s = min(|x|, 16); -|2v| = -s (b + a s^2) as the pair y_hi + y_lo.
  const __m512 s = _mm512_min_ps(splat(16.0f), _mm512_and_ps(x, magnitude_bits));
  const __m512 square_hi = _mm512_mul_ps(s, s);
  const __m512 square_lo = _mm512_fmsub_ps(s, s, square_hi);
  const __m512 cubic_hi = _mm512_mul_ps(square_hi, splat(kAHi));
  const __m512 cubic_lo0 = _mm512_fmsub_ps(splat(kAHi), square_hi, cubic_hi);
  const __m512 cubic_lo = _mm512_fmadd_ps(
      splat(kAHi), square_lo, _mm512_fmadd_ps(splat(kALo), square_hi, cubic_lo0));
  const __m512 b = splat(static_cast<float>(2.0 * kC1));
  const __m512 larger = _mm512_max_ps(cubic_hi, b);
  const __m512 smaller = _mm512_min_ps(b, cubic_hi);
  const __m512 w_hi = _mm512_add_ps(cubic_hi, b);
  const __m512 w_lo = _mm512_sub_ps(smaller, _mm512_sub_ps(w_hi, larger));
  const __m512 minus_s = _mm512_xor_ps(s, splat(-0.0f));
  const __m512 y_hi = _mm512_mul_ps(w_hi, minus_s);
  const __m512 y_lo0 = _mm512_fmsub_ps(minus_s, w_hi, y_hi);
  return {x, y_hi, _mm512_fmadd_ps(minus_s, _mm512_add_ps(w_lo, cubic_lo), y_lo0)};
}

// table_exp_parts(y_hi, y_lo, -120): e = exp(y) = high (1 + s) 2^k rounded; its reduction
// (2a) and the rest (2b) are stages of their own in the four-stage pipeline.
[[gnu::always_inline]] inline GeluReduction gelu_stage2a(const GeluReduced& in) {
  const __m512 clamped = _mm512_max_ps(splat(-120.0f), in.y_hi);
  const __m512 shifter = splat(0x1.8p23f);
  const __m512 shifted = _mm512_fmadd_ps(clamped, splat(32 * kInverseLn2), shifter);
  const __m512 thirty_seconds = _mm512_fmadd_ps(shifted, splat(1.0f / 32), splat(-0x1.8p23f / 32));
  __m512 r = _mm512_fmadd_ps(thirty_seconds, splat(-kLn2High), clamped);
  r = _mm512_add_ps(r, _mm512_fmadd_ps(thirty_seconds, splat(-kLn2Low), in.y_lo));
  return {in.x, in.y_hi, thirty_seconds, r, shifted};
}

[[gnu::always_inline]] inline GeluExp gelu_stage2b(const GeluReduction& in) {
  const __m512 r = in.r, thirty_seconds = in.thirty_seconds;
  const __m512i bits = _mm512_castps_si512(in.shifted);
  const __m512 high = _mm512_permutex2var_ps(_mm512_load_ps(kPowersHigh), bits,
                                             _mm512_load_ps(kPowersHigh + 16));
  const __m512 error = _mm512_permutex2var_ps(_mm512_load_ps(kPowersError), bits,
                                              _mm512_load_ps(kPowersError + 16));
  const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r),
                                   _mm512_fmadd_ps(r, splat(0x1.555556p-3f), splat(0.5f)), r);
  const __m512 small_s = _mm512_add_ps(p, error);
  const __m512 e = _mm512_scalef_ps(_mm512_fmadd_ps(high, small_s, high), thirty_seconds);
  return {in.x, in.y_hi, thirty_seconds, high, small_s, e};
}

[[gnu::always_inline]] inline GeluExp gelu_stage2(const GeluReduced& in) {
  return gelu_stage2b(gelu_stage2a(in));
}

// times_sigmoid: x >= 0: x / (1 + e); else (x high (1 + s) / (1 + e)) 2^k; x's sign.
[[gnu::always_inline]] inline __m512 gelu_stage3(const GeluExp& in) {
  const __m512 x = in.x, zero = _mm512_setzero_ps();
  const __m512 magnitude_bits = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  const __mmask16 negative = _mm512_cmp_ps_mask(x, zero, _CMP_NGE_UQ);  // not (x >= 0)
  const __mmask16 infinite = _mm512_cmp_ps_mask(x, splat(INFINITY), _CMP_EQ_OQ);
  const __m512 d_hi = _mm512_add_ps(in.e, splat(1.0f));
  const __m512 d_lo = _mm512_sub_ps(in.e, _mm512_add_ps(d_hi, splat(-1.0f)));
  const __m512 k_real = _mm512_maskz_mov_ps(negative, in.thirty_seconds);
  const __m512 product_hi = _mm512_mul_ps(x, in.high);
  const __m512 product_lo = _mm512_fmsub_ps(x, in.high, product_hi);
  const __m512 numerator_hi = _mm512_mask_blend_ps(negative, x, product_hi);
  const __m512 numerator_lo = _mm512_maskz_fmadd_ps(negative, product_hi, in.small_s, product_lo);
  // corrected_quotient
  const __m512 inverse = _mm512_div_ps(splat(1.0f), d_hi);
  const __m512 quotient = _mm512_mul_ps(numerator_hi, inverse);
  __m512 residual = _mm512_fnmadd_ps(quotient, d_hi, numerator_hi);
  residual = _mm512_add_ps(residual, _mm512_fnmadd_ps(quotient, d_lo, numerator_lo));
  __m512 result = _mm512_scalef_ps(_mm512_fmadd_ps(residual, inverse, quotient), k_real);
  const __mmask16 vanishing = _mm512_mask_cmp_ps_mask(negative, in.y_hi, splat(-120.0f), _CMP_LT_OQ);
  result = _mm512_mask_mov_ps(result, infinite, x);
  result = _mm512_mask_mul_ps(result, vanishing, x, zero);
  // copysign(result, x)
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
      _mm512_castps_si512(magnitude_bits), _mm512_castps_si512(result), _mm512_castps_si512(x),
      0xca));  // magnitude_bits ? result : x
}

[[gnu::always_inline]] inline __m512 gelu_tanh(__m512 x) {
  return gelu_stage3(gelu_stage2(gelu_stage1(x)));
}

// ---- The epilogues: out = f(c, bias, residual), one 16-lane vector.
struct GeluEpilogue {
  static constexpr const char* name = "gelu_tanh(c+b)+r";
  [[gnu::always_inline]] static __m512 apply(__m512 c, __m512 bias, __m512 residual) {
    return _mm512_add_ps(gelu_tanh(_mm512_add_ps(c, bias)), residual);
  }
};
struct ReluEpilogue {
  static constexpr const char* name = "relu(c+b)+r";
  [[gnu::always_inline]] static __m512 apply(__m512 c, __m512 bias, __m512 residual) {
    return _mm512_add_ps(_mm512_max_ps(_mm512_add_ps(c, bias), _mm512_setzero_ps()), residual);
  }
};
struct TrivialEpilogue {
  static constexpr const char* name = "c*1.0001+b+r";
  [[gnu::always_inline]] static __m512 apply(__m512 c, __m512 bias, __m512 residual) {
    return _mm512_add_ps(_mm512_fmadd_ps(c, splat(1.0001f), bias), residual);
  }
};

// Timing only (its values mean nothing): gelu_tanh's operation mix per vector (25 FMAs, 2
// vpermi2ps, 14 additions/min/max, 1 division, 2 vscalefps, 3 compares, 4 masked moves, 3 logic)
// in short chains, about 40 cycles deep against gelu_tanh's chain (measured in "pipes"): does B
// overlap when the epilogue's latency is short?
struct ShortChainEpilogue {
  static constexpr const char* name = "gelu's mix, short chains";
  [[gnu::always_inline]] static __m512 apply(__m512 c, __m512 bias, __m512 residual) {
    const __m512 x = _mm512_add_ps(c, bias);
    const __m512 magnitude = _mm512_and_ps(x, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff)));
    const __m512 negated = _mm512_xor_ps(x, splat(-0.0f));
    const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ);
    const __mmask16 infinite = _mm512_cmp_ps_mask(x, splat(INFINITY), _CMP_EQ_OQ);
    const __m512 s = _mm512_min_ps(splat(16.0f), magnitude);
    const __m512 y = _mm512_max_ps(splat(-120.0f), negated);
    __m512 f[5] = {_mm512_fmadd_ps(s, splat(0.25f), x), _mm512_fmadd_ps(y, splat(0.125f), s),
                   _mm512_fmadd_ps(x, splat(0.375f), y), _mm512_fmadd_ps(s, splat(0.625f), y),
                   _mm512_fmadd_ps(x, splat(0.75f), s)};
#pragma GCC unroll 4
    for (int round = 0; round < 4; ++round)
#pragma GCC unroll 5
      for (__m512& v : f) v = _mm512_fmadd_ps(v, splat(0.5f), x);
    const __m512 high = _mm512_permutex2var_ps(_mm512_load_ps(kPowersHigh), _mm512_castps_si512(y),
                                               _mm512_load_ps(kPowersHigh + 16));
    const __m512 error = _mm512_permutex2var_ps(_mm512_load_ps(kPowersError), _mm512_castps_si512(s),
                                                _mm512_load_ps(kPowersError + 16));
    const __m512 inverse = _mm512_div_ps(splat(1.0f), _mm512_add_ps(s, splat(1.0f)));
    const __m512 e0 = _mm512_scalef_ps(f[0], high), e1 = _mm512_scalef_ps(f[1], error);
    const __mmask16 smaller = _mm512_cmp_ps_mask(e0, e1, _CMP_LT_OQ);
    const __m512 m0 = _mm512_maskz_mov_ps(negative, f[2]);
    const __m512 m1 = _mm512_mask_blend_ps(negative, f[3], f[4]);
    const __m512 t5 = _mm512_max_ps(_mm512_add_ps(e0, e1), _mm512_sub_ps(m0, m1));
    const __m512 t6 = _mm512_add_ps(_mm512_add_ps(inverse, y), _mm512_sub_ps(f[2], s));
    const __m512 t9 = _mm512_max_ps(_mm512_min_ps(_mm512_min_ps(f[4], negated), magnitude), splat(-1.0f));
    __m512 result = _mm512_add_ps(_mm512_add_ps(t5, t6), t9);
    result = _mm512_mask_mov_ps(result, infinite, x);
    result = _mm512_mask_mov_ps(result, smaller, e0);
    result = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_set1_epi32(0x7fffffff), _mm512_castps_si512(result), _mm512_castps_si512(x), 0xca));
    return _mm512_add_ps(result, residual);
  }
};

// A finished tile whose epilogue has not run: C (where the product stored it), the output (C
// itself, in place, except for the epilogue-only timing), residual and bias columns.
struct PendingTile {
  const float* c = nullptr;
  float* out = nullptr;
  const float* residual = nullptr;
  const float* bias = nullptr;
};

// Epilogue vector e (row e / 2, column vector e % 2) of a pending tile, in place.
template <class Epilogue>
[[gnu::always_inline]] inline void epilogue_vector(const PendingTile& t, int e, std::int64_t ldc) {
  const std::int64_t at = (e >> 1) * ldc + (e & 1) * kLanes;
  const __m512 c = _mm512_loadu_ps(t.c + at);
  _mm512_storeu_ps(t.out + at, Epilogue::apply(c, _mm512_loadu_ps(t.bias + (e & 1) * kLanes),
                                               _mm512_loadu_ps(t.residual + at)));
}

template <int MR>
[[gnu::always_inline]] inline void k_step(const float* a, const float* b, __m512 (&acc)[MR][2]) {
  const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + kLanes);
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const __m512 ar = _mm512_set1_ps(a[r]);
    acc[r][0] = _mm512_fmadd_ps(ar, b0, acc[r][0]);
    acc[r][1] = _mm512_fmadd_ps(ar, b1, acc[r][1]);
  }
}

template <int MR>
[[gnu::always_inline]] inline void store_tile(float* out, std::int64_t ldc, __m512 (&acc)[MR][2]) {
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    _mm512_storeu_ps(out + r * ldc, acc[r][0]);
    _mm512_storeu_ps(out + r * ldc + kLanes, acc[r][1]);
  }
}

// --prefetch: each variant first prefetches the residual rows of the tile whose epilogue it will
// run (A: this tile, after its k loop; B, C: the previous tile, during the k loop), so the
// residual's misses overlap the product at the real size.
bool prefetch_residual = false;

template <int MR>
[[gnu::always_inline]] inline void prefetch_rows(const float* residual, std::int64_t ldc) {
  if (!prefetch_residual || residual == nullptr) return;
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(residual + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(residual + r * ldc + kLanes), _MM_HINT_T0);
  }
}

// bare (Epilogue = void) and A: the product, the tile stored, then its epilogue.
template <int MR, class Epilogue>
[[gnu::noinline]] void tile_sequential(const float* __restrict a, const float* __restrict b,
                                       PendingTile tile, std::int64_t ldc) {
  __m512 acc[MR][2];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  if constexpr (!std::is_void_v<Epilogue>) prefetch_rows<MR>(tile.residual, ldc);
  for (int p = 0; p < kK; ++p) k_step<MR>(a + p * MR, b + p * kNr, acc);
  store_tile<MR>(tile.out, ldc, acc);
  if constexpr (!std::is_void_v<Epilogue>) {
#pragma GCC unroll 1
    for (int e = 0; e < 2 * MR; ++e) epilogue_vector<Epilogue>(tile, e, ldc);
  }
}

// The epilogue alone over a tile whose C was stored before (the lower bound of A and B is
// max(bare, this) if the two overlapped perfectly, bare + this if not at all).
template <int MR, class Epilogue>
[[gnu::noinline]] void tile_epilogue_only(PendingTile tile, std::int64_t ldc) {
#pragma GCC unroll 1
  for (int e = 0; e < 2 * MR; ++e) epilogue_vector<Epilogue>(tile, e, ldc);
}

// B: the product of this tile with the epilogue of `previous` (if its out is set) spread over
// the k loop, one vector per kPeriod k steps; returns nothing, the caller passes this tile as the
// next call's `previous` and drains the last one with drain().
template <int MR>
constexpr int kPeriod = std::max(1, kK / (2 * MR));

// The k loop of B and C over this tile, with previous's residual rows prefetched first:
// `between()` after every kPeriod k steps, `after()` when the k loop is done, then the tile stored.
template <int MR, class Between, class After>
[[gnu::always_inline]] inline void product_spreading(const float* __restrict a, const float* __restrict b,
                                                     PendingTile tile, PendingTile previous, std::int64_t ldc,
                                                     Between between, After after) {
  constexpr int period = kPeriod<MR>;
  __m512 acc[MR][2];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  if (previous.out != nullptr) prefetch_rows<MR>(previous.residual, ldc);
  for (int step = 0; step < kK / period; ++step) {
#pragma GCC unroll 16
    for (int u = 0; u < period; ++u) {
      const int p = step * period + u;
      k_step<MR>(a + p * MR, b + p * kNr, acc);
    }
    between();
  }
  for (int p = kK / period * period; p < kK; ++p) k_step<MR>(a + p * MR, b + p * kNr, acc);
  after();
  store_tile<MR>(tile.out, ldc, acc);
}

template <int MR, class Epilogue>
[[gnu::noinline]] void tile_interleaved(const float* __restrict a, const float* __restrict b,
                                        PendingTile tile, PendingTile previous, std::int64_t ldc) {
  const int pending = previous.out != nullptr ? 2 * MR : 0;
  int e = 0;
  product_spreading<MR>(
      a, b, tile, previous, ldc, [&] { if (e < pending) epilogue_vector<Epilogue>(previous, e++, ldc); },
      [&] { for (; e < pending; ++e) epilogue_vector<Epilogue>(previous, e, ldc); });
}

// C (gelu_tanh only): B with the epilogue software-pipelined in Stages (3 or 4) stages: unrolled
// step j runs the last stage of vector j - Stages + 1, ..., stage 1 of vector j (of the previous
// tile), so each stage's inputs were computed a step (P k steps of FMAs) earlier; the last
// vectors' remaining stages run after the k loop.
template <int MR, int Stages>
[[gnu::noinline]] void tile_pipelined(const float* __restrict a, const float* __restrict b,
                                      PendingTile tile, PendingTile previous, std::int64_t ldc) {
  static_assert(Stages == 3 || Stages == 4);
  const int pending = previous.out != nullptr ? 2 * MR : 0;
  auto offset = [&](int e) { return (e >> 1) * ldc + (e & 1) * kLanes; };
  GeluReduced reduced{};
  GeluReduction reduction{};
  GeluExp exp_parts{};
  // Vector j enters stage 1; the vector that entered `lag` steps ago runs stage lag + 1.
  auto advance = [&](int j) {
    auto in_flight = [&](int lag) { return j - lag >= 0 && j - lag < pending; };
    if (in_flight(Stages - 1)) {
      const int e = j - (Stages - 1);
      _mm512_storeu_ps(previous.out + offset(e),
                       _mm512_add_ps(gelu_stage3(exp_parts),
                                     _mm512_loadu_ps(previous.residual + offset(e))));
    }
    if constexpr (Stages == 4) {
      if (in_flight(2)) exp_parts = gelu_stage2b(reduction);
      if (in_flight(1)) reduction = gelu_stage2a(reduced);
    } else {
      if (in_flight(1)) exp_parts = gelu_stage2(reduced);
    }
    if (in_flight(0))
      reduced = gelu_stage1(_mm512_add_ps(_mm512_loadu_ps(previous.c + offset(j)),
                                          _mm512_loadu_ps(previous.bias + (j & 1) * kLanes)));
  };
  const int steps = pending + Stages - 1;
  int j = 0;
  product_spreading<MR>(
      a, b, tile, previous, ldc, [&] { if (j < steps) advance(j++); },
      [&] { for (; j < steps; ++j) advance(j); });
}

template <class Epilogue>
[[gnu::noinline]] void drain(PendingTile tile, int mr, std::int64_t ldc) {
  for (int e = 0; e < 2 * mr; ++e) epilogue_vector<Epilogue>(tile, e, ldc);
}

// ---- Workloads. Packed A: row panels of k x MR; packed B: column panels of k x 32.
enum class Variant { bare, epilogue_only, sequential, interleaved, pipelined3, pipelined4 };

struct Problem {
  std::int64_t m, n, ldc;
  const float* packed_a;
  const float* packed_b;
  const float* bias;      // n
  const float* residual;  // m x n, row stride ldc
  float* out;
  float* epilogue_only_out;  // the epilogue-only variant reads C from out and writes here
  int repeats;            // the whole product, repeated
  std::int64_t column_block;  // jc block (B block kept in L2)
};

template <int MR, class Epilogue>
void run(const Problem& q, Variant variant) {
  PendingTile previous;
  for (int rep = 0; rep < q.repeats; ++rep) {
    for (std::int64_t jc = 0; jc < q.n; jc += q.column_block) {
      for (std::int64_t ic = 0; ic < q.m; ic += MR) {
        const float* a = q.packed_a + ic * kK;
        for (std::int64_t jr = jc; jr < std::min(q.n, jc + q.column_block); jr += kNr) {
          const float* b = q.packed_b + jr * kK;
          const std::int64_t at = ic * q.ldc + jr;
          PendingTile tile{q.out + at, q.out + at, q.residual + at, q.bias + jr};
          if (variant == Variant::bare) {
            tile_sequential<MR, void>(a, b, tile, q.ldc);
          } else if (variant == Variant::epilogue_only) {
            tile.out = q.epilogue_only_out + at;
            tile_epilogue_only<MR, Epilogue>(tile, q.ldc);
          } else if (variant == Variant::sequential) {
            tile_sequential<MR, Epilogue>(a, b, tile, q.ldc);
          } else if (variant == Variant::interleaved) {
            tile_interleaved<MR, Epilogue>(a, b, tile, previous, q.ldc);
            previous = tile;
          } else if constexpr (std::is_same_v<Epilogue, GeluEpilogue>) {
            if (variant == Variant::pipelined3) {
              tile_pipelined<MR, 3>(a, b, tile, previous, q.ldc);
            } else {
              tile_pipelined<MR, 4>(a, b, tile, previous, q.ldc);
            }
            previous = tile;
          }
        }
      }
    }
  }
  if (previous.out != nullptr) drain<Epilogue>(previous, MR, q.ldc);
}

// ---- Measurement helpers.
double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// Cycles per second from a chain of dependent integer adds (one cycle each).
double measure_hz() {
  constexpr std::int64_t iterations = 20'000'000;
  std::int64_t x = 0, n = iterations;
  const double start = thread_seconds();
  asm volatile(
      "1:\n\t"
      "add $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\t"
      "add $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\tadd $1, %[x]\n\t"
      "dec %[n]\n\tjnz 1b"
      : [x] "+r"(x), [n] "+r"(n));
  return 10.0 * iterations / (thread_seconds() - start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct AlignedBuffer {
  float* data;
  std::size_t size;
  explicit AlignedBuffer(std::size_t n) : data(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64))), size(n) {
    std::memset(data, 0, n * 4);  // first touch outside the timings
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

void fill(AlignedBuffer& b, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  for (std::size_t i = 0; i < b.size; ++i) b.data[i] = d(rng);
}

// One problem's buffers: m x n output (and a second one for B's check), residual, packed A and B.
struct Buffers {
  Problem problem;
  AlignedBuffer a, b, bias, residual, out, out_check;
  Buffers(std::int64_t m, std::int64_t n, int repeats, std::int64_t column_block)
      : a(static_cast<std::size_t>(m * kK)), b(static_cast<std::size_t>(n * kK)),
        bias(static_cast<std::size_t>(n)), residual(static_cast<std::size_t>(m * n)),
        out(static_cast<std::size_t>(m * n)), out_check(static_cast<std::size_t>(m * n)) {
    std::mt19937 rng(7);
    // x·W + b of magnitude ~1-3 so gelu's both sides and its table are exercised.
    fill(a, rng, -0.5f, 0.5f);
    fill(b, rng, -0.5f, 0.5f);
    fill(this->bias, rng, -1.0f, 1.0f);
    fill(residual, rng, -1.0f, 1.0f);
    problem = {m, n, n, a.data, b.data, this->bias.data, residual.data, out.data, out_check.data,
               repeats, column_block};
  }
};

struct ShapeResult {
  int mr;
  double bare;
  double alone[4], seq[4], inter[4];  // per epilogue: gelu, relu, trivial, short chains
  double gelu_pipelined3, gelu_pipelined4;
};

template <int MR>
using Runner = void (*)(const Problem&, Variant);

// Medians of `rounds` rounds, each running bare and A/B for the three epilogues (order reversed
// every other round). Returns seconds per run.
template <int MR>
ShapeResult measure_shape(Buffers& buf, int rounds) {
  const Runner<MR> runners[4] = {run<MR, GeluEpilogue>, run<MR, ReluEpilogue>,
                                 run<MR, TrivialEpilogue>, run<MR, ShortChainEpilogue>};
  struct Case { Runner<MR> f; Variant v; std::vector<double> t; };
  std::vector<Case> cases;
  cases.push_back({runners[0], Variant::bare, {}});
  for (int i = 0; i < 4; ++i) {
    cases.push_back({runners[i], Variant::epilogue_only, {}});
    cases.push_back({runners[i], Variant::sequential, {}});
    cases.push_back({runners[i], Variant::interleaved, {}});
  }
  cases.push_back({runners[0], Variant::pipelined3, {}});
  cases.push_back({runners[0], Variant::pipelined4, {}});
  for (Case& c : cases) c.f(buf.problem, c.v);  // warm-up
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t j = 0; j < cases.size(); ++j) {
      Case& c = cases[round % 2 == 0 ? j : cases.size() - 1 - j];
      const double start = thread_seconds();
      c.f(buf.problem, c.v);
      c.t.push_back(thread_seconds() - start);
    }
  }
  ShapeResult r{MR, median(cases[0].t), {}, {}, {}, median(cases[cases.size() - 2].t),
                median(cases.back().t)};
  for (int i = 0; i < 4; ++i) {
    r.alone[i] = median(cases[1 + 3 * i].t);
    r.seq[i] = median(cases[2 + 3 * i].t);
    r.inter[i] = median(cases[3 + 3 * i].t);
  }
  return r;
}

// B (and C for gelu_tanh) against A, bit for bit, on a problem; returns whether all match.
template <int MR>
bool check_shape(Buffers& buf, const char* setting) {
  const Runner<MR> runners[3] = {run<MR, GeluEpilogue>, run<MR, ReluEpilogue>, run<MR, TrivialEpilogue>};
  const char* names[3] = {GeluEpilogue::name, ReluEpilogue::name, TrivialEpilogue::name};
  bool all = true;
  const std::size_t bytes = buf.out.size * 4;
  for (int i = 0; i < 3; ++i) {
    for (Variant other : {Variant::interleaved, Variant::pipelined3, Variant::pipelined4}) {
      if (other != Variant::interleaved && i != 0) continue;
      Problem q = buf.problem;
      q.repeats = 1;
      std::memset(buf.out.data, 0x11, bytes);
      std::memset(buf.out_check.data, 0x22, bytes);
      runners[i](q, Variant::sequential);
      q.out = buf.out_check.data;
      runners[i](q, other);
      const bool same = std::memcmp(buf.out.data, buf.out_check.data, bytes) == 0;
      std::printf("  %-6s %2dx32 %-18s %s %s A\n", setting, MR, names[i],
                  other == Variant::interleaved ? "B " : other == Variant::pipelined3 ? "C3" : "C4",
                  same ? "== (memcmp, all bytes)" : "!= (DIFFERENT)");
      all = all && same;
    }
  }
  return all;
}

// ---- Accuracy of the gelu_tanh port against x sigmoid(2v) in long double (= 0.5 x (1 +
// tanh(v)), without the cancellation of 1 + tanh(v) for x < -5 that makes the literal formula
// meaningless there in double), v = c1 (x + c2 x^3) with the f32 constants the JIT uses.
[[gnu::noinline]] void gelu_array(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; i += kLanes) _mm512_storeu_ps(y + i, gelu_tanh(_mm512_loadu_ps(x + i)));
}

void accuracy() {
  constexpr std::size_t n = 1 << 23;
  std::vector<float> x(n), y(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> d(-9.0f, 9.0f);
  for (float& v : x) v = d(rng);
  gelu_array(x.data(), y.data(), n);
  double worst = 0, worst_x = 0, worst_literal = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double xi = x[i];
    const long double v = static_cast<long double>(kC1) * (xi + static_cast<long double>(kC2) * xi * xi * xi);
    const long double reference = xi / (1.0L + std::exp(-2.0L * v));
    const double error = static_cast<double>(std::fabs((y[i] - reference) / reference));
    if (error > worst) worst = error, worst_x = x[i];
    if (x[i] > -5.0f) {  // the literal formula in double, where it has no cancellation
      const double xd = x[i];
      const double literal = 0.5 * xd * (1 + std::tanh(0.7978845608 * (xd + 0.044715 * xd * xd * xd)));
      worst_literal = std::max(worst_literal, std::fabs((y[i] - literal) / literal));
    }
  }
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 16.5f, -16.5f, -12.0f};
  float sx[16] = {}, sy[16];
  std::copy(std::begin(specials), std::end(specials), sx);
  gelu_array(sx, sy, 16);
  std::printf("gelu_tanh port, %zu uniform x in [-9, 9]: max relative error %.3g (at x = %.9g) "
              "against x sigmoid(2v) in long double; %.3g against the literal double formula "
              "0.5x(1+tanh(0.7978845608(x+0.044715x^3))) on x > -5\n",
              n, worst, worst_x, worst_literal);
  std::printf("  specials:");
  for (int i = 0; i < 8; ++i) std::printf(" g(%g)=%g", sx[i], sy[i]);
  std::printf("\n");
}

// ---- Where the cycles go. Which pipes an operation of gelu_tanh shares with the FMAs: per loop
// iteration 12 independent FMA chains (12 FMAs), 8 independent operations of one kind, or both;
// cycles per iteration (FMA alone ~6 on two FMA pipes: both ~6 means other pipes, ~10 the FMA
// pipes). Then gelu_tanh's throughput in L1 with one or four independent vectors per iteration
// (the JIT's loop runs one: its body is long).
#define TJ_FMA12                                                                             \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm0\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm1\n\t"          \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm2\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm3\n\t"          \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm4\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm5\n\t"          \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm6\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm7\n\t"          \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm8\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm9\n\t"          \
  "vfmadd231ps %%zmm30, %%zmm31, %%zmm10\n\tvfmadd231ps %%zmm30, %%zmm31, %%zmm11\n\t"
#define TJ_OPS8(op)                                                                             \
  op(12) op(13) op(14) op(15) op(16) op(17) op(18) op(19)
#define TJ_ADD(d) "vaddps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_MUL(d) "vmulps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_MIN(d) "vminps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_AND(d) "vandps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_CMP(d) "vcmpltps %%zmm28, %%zmm29, %%k" "1" "\n\t"
#define TJ_BLEND(d) "vblendmps %%zmm28, %%zmm29, %%zmm" #d "%{%%k2%}\n\t"
#define TJ_TERNLOG(d) "vpternlogd $0xca, %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_PERMI2(d) "vpermi2ps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_SCALEF(d) "vscalefps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_DIV(d) "vdivps %%zmm28, %%zmm29, %%zmm" #d "\n\t"
#define TJ_CLOBBERS                                                                            \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",     \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",         \
      "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "cc"
// zmm28..31 = 1.0 (no special values; vpermi2ps's index 1.0 is a valid index in its low bits),
// the accumulators 0.
#define TJ_PIPE_LOOP(body)                                                                     \
  [](std::int64_t n) {                                                                         \
    const float one = 1.0f;                                                                     \
    asm volatile(                                                                              \
        "vbroadcastss %[one], %%zmm28\n\tvmovaps %%zmm28, %%zmm29\n\t"                        \
        "vmovaps %%zmm28, %%zmm30\n\tvmovaps %%zmm28, %%zmm31\n\tkxnorw %%k2, %%k2, %%k2\n\t"  \
        "vxorps %%xmm0, %%xmm0, %%xmm0\n\tvmovaps %%zmm0, %%zmm1\n\tvmovaps %%zmm0, %%zmm2\n\t" \
        "vmovaps %%zmm0, %%zmm3\n\tvmovaps %%zmm0, %%zmm4\n\tvmovaps %%zmm0, %%zmm5\n\t"       \
        "vmovaps %%zmm0, %%zmm6\n\tvmovaps %%zmm0, %%zmm7\n\tvmovaps %%zmm0, %%zmm8\n\t"       \
        "vmovaps %%zmm0, %%zmm9\n\tvmovaps %%zmm0, %%zmm10\n\tvmovaps %%zmm0, %%zmm11\n\t"     \
        TJ_OPS8(TJ_MOVE_ONE)                                                                   \
        "1:\n\t" body "dec %[n]\n\tjnz 1b\n\tvzeroupper"                                        \
        : [n] "+r"(n)                                                                          \
        : [one] "m"(one)                                                                       \
        : TJ_CLOBBERS);                                                                        \
  }
#define TJ_MOVE_ONE(d) "vmovaps %%zmm28, %%zmm" #d "\n\t"

using PipeLoop = void (*)(std::int64_t);

struct PipeKind {
  const char* name;
  PipeLoop alone, with_fma;
};

double cycles_per_iteration(PipeLoop loop, double hz) {
  constexpr std::int64_t iterations = 2'000'000;
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const double start = thread_seconds();
    loop(iterations);
    t.push_back(thread_seconds() - start);
  }
  return median(t) * hz / iterations;
}

[[gnu::noinline]] void gelu_array4(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 4 * kLanes) {
    const __m512 g0 = gelu_tanh(_mm512_loadu_ps(x + i)), g1 = gelu_tanh(_mm512_loadu_ps(x + i + 16));
    const __m512 g2 = gelu_tanh(_mm512_loadu_ps(x + i + 32)), g3 = gelu_tanh(_mm512_loadu_ps(x + i + 48));
    _mm512_storeu_ps(y + i, g0);
    _mm512_storeu_ps(y + i + 16, g1);
    _mm512_storeu_ps(y + i + 32, g2);
    _mm512_storeu_ps(y + i + 48, g3);
  }
}

void where_the_cycles_go(double hz) {
  const PipeLoop fma_only = TJ_PIPE_LOOP(TJ_FMA12);
  const PipeKind kinds[] = {
      {"vaddps", TJ_PIPE_LOOP(TJ_OPS8(TJ_ADD)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_ADD))},
      {"vmulps", TJ_PIPE_LOOP(TJ_OPS8(TJ_MUL)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_MUL))},
      {"vminps", TJ_PIPE_LOOP(TJ_OPS8(TJ_MIN)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_MIN))},
      {"vandps", TJ_PIPE_LOOP(TJ_OPS8(TJ_AND)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_AND))},
      {"vcmpltps->k", TJ_PIPE_LOOP(TJ_OPS8(TJ_CMP)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_CMP))},
      {"vblendmps", TJ_PIPE_LOOP(TJ_OPS8(TJ_BLEND)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_BLEND))},
      {"vpternlogd", TJ_PIPE_LOOP(TJ_OPS8(TJ_TERNLOG)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_TERNLOG))},
      {"vpermi2ps", TJ_PIPE_LOOP(TJ_OPS8(TJ_PERMI2)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_PERMI2))},
      {"vscalefps", TJ_PIPE_LOOP(TJ_OPS8(TJ_SCALEF)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_SCALEF))},
      {"vdivps", TJ_PIPE_LOOP(TJ_OPS8(TJ_DIV)), TJ_PIPE_LOOP(TJ_FMA12 TJ_OPS8(TJ_DIV))},
  };
  std::printf("pipes, cycles per iteration: 12 FMAs alone %.2f\n", cycles_per_iteration(fma_only, hz));
  for (const PipeKind& k : kinds)
    std::printf("  8 x %-12s alone %5.2f   with the 12 FMAs %5.2f\n", k.name,
                cycles_per_iteration(k.alone, hz), cycles_per_iteration(k.with_fma, hz));
  constexpr std::size_t n = 4096;  // 16 KiB in, 16 KiB out: L1
  std::vector<float> x(n), y(n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for (float& v : x) v = d(rng);
  struct Loop {
    const char* name;
    void (*f)(const float*, float*, std::size_t);
  };
  for (auto [name, f] : {Loop{"1 vector", gelu_array}, Loop{"4 vectors", gelu_array4}}) {
    std::vector<double> t;
    for (int i = 0; i < 9; ++i) {
      const double start = thread_seconds();
      for (int r = 0; r < 1000; ++r) f(x.data(), y.data(), n);
      t.push_back(thread_seconds() - start);
    }
    std::printf("gelu_tanh alone in L1, %s per iteration: %.2f cycles per vector\n", name,
                median(t) * hz / (1000.0 * n / kLanes));
  }
  // Latency: x = gelu_tanh(x) - 1 chained (it settles near -1.14, no subnormals); minus the
  // subtraction's own latency, taken from a chain of x = x - 1 run the same way.
  auto chain = [&](bool with_gelu) {
    std::vector<double> t;
    constexpr int steps = 200'000;
    for (int i = 0; i < 9; ++i) {
      __m512 v = _mm512_loadu_ps(x.data());
      const double start = thread_seconds();
      for (int step = 0; step < steps; ++step) {
        if (with_gelu) v = gelu_tanh(v);
        v = _mm512_sub_ps(v, splat(1.0f));
        asm volatile("" : "+v"(v));
      }
      t.push_back(thread_seconds() - start);
      _mm512_storeu_ps(y.data(), v);
    }
    return median(t) * hz / steps;
  };
  std::printf("gelu_tanh latency (one vector's dependency chain): %.1f cycles\n",
              chain(true) - chain(false));
  std::fflush(stdout);
}

// ---- Settings.
const char* const kEpilogueNames[4] = {GeluEpilogue::name, ReluEpilogue::name,
                                       TrivialEpilogue::name, ShortChainEpilogue::name};

// One line per epilogue: cycles per 16-lane output vector (and ms for the real size).
template <int MR>
void report(const ShapeResult& r, double vectors, double hz, const char* setting) {
  auto cycles = [&](double s) { return s * hz / vectors; };
  const bool real = std::string(setting) == "real";
  for (int i = 0; i < 4; ++i) {
    std::printf("%-5s %2dx32 P=%d %-24s cycles/vector: bare %6.2f alone %6.2f A %6.2f B %6.2f "
                "B/A %.3f", setting, MR, kPeriod<MR>, kEpilogueNames[i], cycles(r.bare),
                cycles(r.alone[i]), cycles(r.seq[i]), cycles(r.inter[i]), r.inter[i] / r.seq[i]);
    if (real)
      std::printf(" | ms: bare %6.2f alone %6.2f A %6.2f B %6.2f", 1e3 * r.bare, 1e3 * r.alone[i],
                  1e3 * r.seq[i], 1e3 * r.inter[i]);
    if (i == 0) {
      std::printf(" | C3 %6.2f C3/A %.3f C4 %6.2f C4/A %.3f", cycles(r.gelu_pipelined3),
                  r.gelu_pipelined3 / r.seq[0], cycles(r.gelu_pipelined4),
                  r.gelu_pipelined4 / r.seq[0]);
      if (real) std::printf(" ms C3 %6.2f C4 %6.2f", 1e3 * r.gelu_pipelined3, 1e3 * r.gelu_pipelined4);
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

constexpr std::int64_t kCacheColumns = 512;
constexpr std::int64_t kRealM = 4096, kRealN = 4096;

template <int MR>
Buffers cache_buffers() {
  const int repeats = static_cast<int>((1 << 20) / (kCacheColumns / kLanes * MR));  // ~1M vectors
  return Buffers(MR, kCacheColumns, repeats, kCacheColumns);
}

template <int MR>
Buffers real_buffers() {
  const std::int64_t m = (kRealM + MR - 1) / MR * MR;
  return Buffers(m, kRealN, 1, 512);
}

template <int MR>
void cache_setting(int rounds, double hz) {
  Buffers buf = cache_buffers<MR>();
  const ShapeResult r = measure_shape<MR>(buf, rounds);
  report<MR>(r, double(buf.problem.repeats) * MR * (kCacheColumns / kLanes), hz, "cache");
}

template <int MR>
void real_setting(int rounds, double hz) {
  Buffers buf = real_buffers<MR>();
  const ShapeResult r = measure_shape<MR>(buf, rounds);
  report<MR>(r, double(buf.problem.m) * (kRealN / kLanes), hz, "real");
}

template <int MR>
bool check(bool real) {
  if (!real) {
    Buffers buf = cache_buffers<MR>();
    buf.problem.repeats = 1;
    return check_shape<MR>(buf, "cache");
  }
  Buffers buf = real_buffers<MR>();
  return check_shape<MR>(buf, "real");
}

double calibrated_hz() {
  std::vector<double> hz;
  for (int i = 0; i < 9; ++i) hz.push_back(measure_hz());
  return median(hz);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 11;
  std::string section = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (arg == "--prefetch") {
      prefetch_residual = true;
    } else if (arg == "--section" && i + 1 < argc) {
      section = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--rounds N] [--section all|accuracy|check|pipes|cache|real] [--prefetch]\n"
                   "run pinned: taskset -c 1 %s\n", argv[0], argv[0]);
      return 2;
    }
  }
  if (rounds < 1) rounds = 1;
  const bool all = section == "all";
  if (all || section == "accuracy") accuracy();
  bool identical = true;
  if (all || section == "check") {
    std::printf("B against A, whole output:\n");
    for (bool real : {false, true})
      identical = check<4>(real) & check<6>(real) & check<8>(real) & check<14>(real) & identical;
  }
  const double hz = calibrated_hz();
  std::printf("clock %.3f GHz (dependent adds), medians of %d rounds, thread CPU time\n", hz / 1e9,
              rounds);
  if (all || section == "pipes") where_the_cycles_go(hz);
  if (all || section == "cache") {
    cache_setting<4>(rounds, hz);
    cache_setting<6>(rounds, hz);
    cache_setting<8>(rounds, hz);
    cache_setting<14>(rounds, hz);
  }
  if (all || section == "real") {
    real_setting<4>(rounds, hz);
    real_setting<6>(rounds, hz);
    real_setting<8>(rounds, hz);
    real_setting<14>(rounds, hz);
  }
  return identical ? 0 : 1;
}
