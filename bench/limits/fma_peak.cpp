// The FMA peak at the native width (-march=native: 512-bit vectors where AVX-512 is present, else
// 256): each thread runs independent FMA chains held in registers, more chains than FMA latency
// times FMA pipes, so the loop is bound by FMA throughput alone. Threads from OMP_NUM_THREADS.
//
//   fma_peak   -> {"f32_gflops": ..., "f64_gflops": ..., "vector_bits": ..., "threads": ...}
#include <omp.h>

#include <cstdio>

namespace {

#if defined(__AVX512F__)
constexpr int vector_bytes = 64;
#elif defined(__AVX__)
constexpr int vector_bytes = 32;
#else
constexpr int vector_bytes = 16;
#endif
constexpr int chains = 16;
constexpr long iterations = 20'000'000;

// Flops per second of one thread; the empty asm consumes the chains so none is optimized away.
template <class T>
double one_thread_rate() {
  typedef T Vector __attribute__((vector_size(vector_bytes)));
  Vector accumulators[chains];
  for (int i = 0; i < chains; ++i) accumulators[i] = Vector{} + T(i);
  const Vector x = Vector{} + T(0.999999), y = Vector{} + T(1e-7);
  const double start = omp_get_wtime();
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < chains; ++i) accumulators[i] = accumulators[i] * x + y;  // contracted: an FMA
  }
  const double seconds = omp_get_wtime() - start;
  for (int i = 0; i < chains; ++i) __asm__ volatile("" : : "v"(accumulators[i]));
  return double(iterations) * chains * 2 * (vector_bytes / sizeof(T)) / seconds;
}

// All threads at once; the sum of their rates, best of three.
template <class T>
double peak_gflops() {
  double best = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    double total = 0;
#pragma omp parallel reduction(+ : total)
    total += one_thread_rate<T>();
    if (total > best) best = total;
  }
  return best * 1e-9;
}

}  // namespace

int main() {
  const double f32 = peak_gflops<float>(), f64 = peak_gflops<double>();
  std::printf("{\"f32_gflops\": %.1f, \"f64_gflops\": %.1f, \"vector_bits\": %d, \"threads\": %d}\n", f32, f64,
              vector_bytes * 8, omp_get_max_threads());
  return 0;
}
