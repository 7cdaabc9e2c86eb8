// The scan of sort.cpp's selection (topk): the first element of a row whose key is below the
// worst key kept so far. Almost every element is below it in a long row, so this is the whole cost
// of a topk: f32 rows read contiguously take 64 elements per step of AVX-512 compares where the
// CPU has them (sort_select_avx512.cpp); everything else, and other CPUs, the portable loop. Both
// return the same index.
#pragma once

#include <cstdint>

#include "sort_keys.hpp"

namespace tensorjit::kernels {

// The AVX-512 scan over contiguous f32 (only where avx512_selection_available()).
std::int64_t first_f32_candidate_avx512(const float* x, std::int64_t n, std::uint32_t worst, bool descending);
bool avx512_selection_available();

// The index in [0, n) of the first element x[i * stride] whose key is below `worst`, or n.
template <typename Value, typename Key>
std::int64_t first_candidate(const Value* x, std::int64_t stride, std::int64_t n, Key worst, bool descending) {
  if constexpr (std::is_same_v<Value, float>) {
    if (stride == 1 && avx512_selection_available()) return first_f32_candidate_avx512(x, n, worst, descending);
  }
  for (std::int64_t i = 0; i < n; ++i)
    if (sort_keys::key_of<Value, Key>(x[i * stride], descending) < worst) return i;
  return n;
}

}  // namespace tensorjit::kernels
