// The AVX-512 scan of a topk's selection (sort_select.hpp), compiled with -mavx512f
// (kernels/CMakeLists.txt) and called only when the CPU has it: 64 f32 keys per step, each made
// as sort.cpp's key_of makes it (NaN the largest, -0.0 as 0.0, the sign flips), compared unsigned
// with the worst kept key. The first candidate's index is the lowest set bit of the masks.
#include <immintrin.h>

#include "sort_select.hpp"

namespace tensorjit::kernels {
namespace {

__m512i keys_of(__m512 values, __m512i flip) {
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  __m512i bits = _mm512_castps_si512(values);
  bits = _mm512_mask_mov_epi32(bits, _mm512_cmpeq_epi32_mask(bits, sign), _mm512_setzero_si512());
  const __m512i all_ones = _mm512_set1_epi32(-1);
  // Negatives: every bit flipped; the others: the sign bit set.
  __m512i key = _mm512_mask_mov_epi32(_mm512_or_si512(bits, sign), _mm512_cmplt_epi32_mask(bits, _mm512_setzero_si512()),
                                      _mm512_xor_si512(bits, all_ones));
  key = _mm512_mask_mov_epi32(key, _mm512_cmp_ps_mask(values, values, _CMP_UNORD_Q), all_ones);
  return _mm512_xor_si512(key, flip);
}

}  // namespace

std::int64_t first_f32_candidate_avx512(const float* x, std::int64_t n, std::uint32_t worst, bool descending) {
  const __m512i flip = _mm512_set1_epi32(descending ? -1 : 0);
  const __m512i limit = _mm512_set1_epi32(static_cast<int>(worst));
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __mmask16 m0 = _mm512_cmplt_epu32_mask(keys_of(_mm512_loadu_ps(x + i), flip), limit);
    const __mmask16 m1 = _mm512_cmplt_epu32_mask(keys_of(_mm512_loadu_ps(x + i + 16), flip), limit);
    const __mmask16 m2 = _mm512_cmplt_epu32_mask(keys_of(_mm512_loadu_ps(x + i + 32), flip), limit);
    const __mmask16 m3 = _mm512_cmplt_epu32_mask(keys_of(_mm512_loadu_ps(x + i + 48), flip), limit);
    const std::uint64_t found = std::uint64_t{m0} | (std::uint64_t{m1} << 16) | (std::uint64_t{m2} << 32) |
                                (std::uint64_t{m3} << 48);
    if (found) return i + __builtin_ctzll(found);
  }
  for (; i < n; i += 16) {
    const auto remaining = static_cast<unsigned>(n - i < 16 ? n - i : 16);
    const __mmask16 lanes = static_cast<__mmask16>((1u << remaining) - 1);
    const __m512 values = _mm512_maskz_loadu_ps(lanes, x + i);
    const __mmask16 found = _mm512_mask_cmplt_epu32_mask(lanes, keys_of(values, flip), limit);
    if (found) return i + __builtin_ctz(found);
  }
  return n;
}

}  // namespace tensorjit::kernels
