#include "fma_peak.hpp"

#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>
#include <vector>

namespace gemm_bench {
namespace {

constexpr std::int64_t iterations = 20'000'000;
// More independent chains than FMA latency x FMA pipes, so the loop is throughput bound.
constexpr int chains = 16;

// Each loop returns the flops it did; an empty asm consumes the result so nothing is optimized away.
#define TENSORJIT_FMA_PEAK_LOOP(Vector, set1, fmadd, Scalar)                          \
  Vector acc[chains];                                                                 \
  for (int i = 0; i < chains; ++i) acc[i] = set1(Scalar(i));                          \
  const Vector x = set1(Scalar(0.999999)), y = set1(Scalar(1e-7));                    \
  for (std::int64_t it = 0; it < iterations; ++it) {                                  \
    _Pragma("GCC unroll 16") for (int i = 0; i < chains; ++i) acc[i] = fmadd(acc[i], x, y); \
  }                                                                                   \
  for (int i = 1; i < chains; ++i) acc[0] = fmadd(acc[0], x, acc[i]);                 \
  __asm__ volatile("" : : "v"(acc[0]));                                              \
  return double(iterations) * chains * 2 * double(sizeof(Vector) / sizeof(Scalar));

__attribute__((target("avx512f"))) double fma_loop_avx512_float() {
  TENSORJIT_FMA_PEAK_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, float)
}
__attribute__((target("avx512f"))) double fma_loop_avx512_double() {
  TENSORJIT_FMA_PEAK_LOOP(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, double)
}
__attribute__((target("avx2,fma"))) double fma_loop_avx2_float() {
  TENSORJIT_FMA_PEAK_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, float)
}
__attribute__((target("avx2,fma"))) double fma_loop_avx2_double() {
  TENSORJIT_FMA_PEAK_LOOP(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, double)
}

double seconds_now(bool cpu_clock) {
  if (!cpu_clock) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec time{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time);
  return double(time.tv_sec) + 1e-9 * double(time.tv_nsec);
}

// The sum over threads of each thread's rate, all threads running at once.
double measure(bool is_double, int threads, bool avx512, bool cpu_clock) {
  std::vector<std::thread> workers;
  std::vector<double> rates(threads);
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const double start = seconds_now(cpu_clock);
      const double flops = avx512 ? (is_double ? fma_loop_avx512_double() : fma_loop_avx512_float())
                                  : (is_double ? fma_loop_avx2_double() : fma_loop_avx2_float());
      rates[t] = flops / (seconds_now(cpu_clock) - start) * 1e-9;
    });
  for (std::thread& worker : workers) worker.join();
  double total = 0;
  for (double rate : rates) total += rate;
  return total;
}

}  // namespace

FmaPeak measure_fma_peak(int threads, bool cpu_clock) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !__builtin_cpu_supports("fma")) return FmaPeak{0, 0, "none"};
  FmaPeak peak;
  peak.width = avx512 ? "AVX-512" : "AVX2";
  for (int repeat = 0; repeat < 3; ++repeat) {
    const double f = measure(false, threads, avx512, cpu_clock);
    const double d = measure(true, threads, avx512, cpu_clock);
    if (f > peak.float_gflops) peak.float_gflops = f;
    if (d > peak.double_gflops) peak.double_gflops = d;
  }
  return peak;
}

}  // namespace gemm_bench
