#include "fma_chains.hpp"

namespace bench {
namespace {

// Chains: more than FMA latency times FMA pipes (4 x 2 on the x86 cores measured), and with x and
// y within the register file: 16 of 32 registers with AVX-512, 12 of 16 without. 16 chains in 16
// ymm registers left three on the stack, each FMA then waiting for its store to be forwarded: Zen 3
// measured 58 GFLOP/s f32 with them, about 60% of its two 256-bit FMA pipes.
#if defined(__AVX512F__)
constexpr int vector_bytes = 64;
constexpr int chains = 16;
#elif defined(__AVX__)
constexpr int vector_bytes = 32;
constexpr int chains = 12;
#else
constexpr int vector_bytes = 16;
constexpr int chains = 12;
#endif
constexpr long iterations = 20'000'000;

// The empty asm consumes the chains so none is optimized away.
template <class T>
double chains_flops() {
  typedef T Vector __attribute__((vector_size(vector_bytes)));
  Vector accumulators[chains];
  for (int i = 0; i < chains; ++i) accumulators[i] = Vector{} + T(i);
  const Vector x = Vector{} + T(0.999999), y = Vector{} + T(1e-7);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 16  // at least `chains`
    for (int i = 0; i < chains; ++i) accumulators[i] = accumulators[i] * x + y;  // contracted: an FMA
  }
  for (int i = 0; i < chains; ++i) __asm__ volatile("" : : "v"(accumulators[i]));
  return double(iterations) * chains * 2 * (vector_bytes / sizeof(T));
}

}  // namespace

int fma_vector_bits() { return vector_bytes * 8; }
double fma_chains_f32() { return chains_flops<float>(); }
double fma_chains_f64() { return chains_flops<double>(); }

}  // namespace bench
