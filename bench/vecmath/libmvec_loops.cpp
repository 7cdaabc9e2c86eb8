#include <immintrin.h>

#include "loops.hpp"

// glibc's vector ABI names (x86_64 vector function ABI: 'd' AVX2 8 lanes, 'e' AVX-512 16 lanes).
extern "C" {
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_logf(__m256);
__m256 _ZGVdN8v_tanhf(__m256);
__m256 _ZGVdN8v_erff(__m256);
__m256 _ZGVdN8v_sinf(__m256);
__m256 _ZGVdN8v_cosf(__m256);
__m256 _ZGVdN8vv_powf(__m256, __m256);
__m512 _ZGVeN16v_expf(__m512);
__m512 _ZGVeN16v_logf(__m512);
__m512 _ZGVeN16v_tanhf(__m512);
__m512 _ZGVeN16v_erff(__m512);
__m512 _ZGVeN16v_sinf(__m512);
__m512 _ZGVeN16v_cosf(__m512);
__m512 _ZGVeN16vv_powf(__m512, __m512);
}

namespace tensorjit::bench {
namespace {

template <__m256 (*function)(__m256)> void apply8(const float* x, const float*, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 8) _mm256_storeu_ps(y + i, function(_mm256_loadu_ps(x + i)));
}

template <__m512 (*function)(__m512)> void apply16(const float* x, const float*, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16) _mm512_storeu_ps(y + i, function(_mm512_loadu_ps(x + i)));
}

void pow8(const float* x, const float* x2, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 8)
    _mm256_storeu_ps(y + i, _ZGVdN8vv_powf(_mm256_loadu_ps(x + i), _mm256_loadu_ps(x2 + i)));
}

void pow16(const float* x, const float* x2, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16)
    _mm512_storeu_ps(y + i, _ZGVeN16vv_powf(_mm512_loadu_ps(x + i), _mm512_loadu_ps(x2 + i)));
}

}  // namespace

FloatLoop libmvec_avx2_loop(const std::string& name) {
  if (name == "exp") return apply8<_ZGVdN8v_expf>;
  if (name == "log") return apply8<_ZGVdN8v_logf>;
  if (name == "tanh") return apply8<_ZGVdN8v_tanhf>;
  if (name == "erf") return apply8<_ZGVdN8v_erff>;
  if (name == "sin") return apply8<_ZGVdN8v_sinf>;
  if (name == "cos") return apply8<_ZGVdN8v_cosf>;
  if (name == "pow") return pow8;
  return nullptr;
}

FloatLoop libmvec_avx512_loop(const std::string& name) {
  if (!__builtin_cpu_supports("avx512f")) return nullptr;  // the column stays empty (AVX2-only CPUs)
  if (name == "exp") return apply16<_ZGVeN16v_expf>;
  if (name == "log") return apply16<_ZGVeN16v_logf>;
  if (name == "tanh") return apply16<_ZGVeN16v_tanhf>;
  if (name == "erf") return apply16<_ZGVeN16v_erff>;
  if (name == "sin") return apply16<_ZGVeN16v_sinf>;
  if (name == "cos") return apply16<_ZGVeN16v_cosf>;
  if (name == "pow") return pow16;
  return nullptr;
}

}  // namespace tensorjit::bench
