#include "w1_loop.hpp"

namespace tensorjit::bench {

void w1_loop(const float* __restrict a, const float* __restrict b, const float* __restrict c,
             float* __restrict y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    const float product = a[i] * b[i];
    const float sum = product + c[i];
    const float maximum = (sum != sum || sum >= 0.0f) ? sum : 0.0f;
    y[i] = maximum * 0.5f;
  }
}

}  // namespace tensorjit::bench
