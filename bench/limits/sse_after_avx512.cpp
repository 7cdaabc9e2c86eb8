// What SSE code pays after AVX-512 code that returns without vzeroupper (docs/gemm.md, "The
// micro-kernel contract"): a loop of std::fma calls made from SSE code (this file is compiled for
// the x86-64 baseline, so each call is SSE code calling glibc's VEX fmaf) timed with the AVX
// state clean, after one zmm instruction, and after vzeroupper. Prints nanoseconds per call as
// JSON; on a CPU without AVX-512 it prints {"skipped": ...}.
//
// Built at -O1 (bench/limits/CMakeLists.txt), as the sanitizer trees build: GCC inserts vzeroupper
// only with -fexpensive-optimizations, so `dirty_zmm` returns with the upper state in use.
#include <chrono>
#include <cmath>
#include <cstdio>

namespace {

[[gnu::target("avx512f"), gnu::noinline]] void dirty_zmm() {
  asm volatile("vpxord %%zmm8, %%zmm8, %%zmm8\n\tvaddps %%zmm8, %%zmm8, %%zmm8" ::: "xmm8");
}

[[gnu::target("avx"), gnu::noinline]] void clean_upper_state() { asm volatile("vzeroupper"); }

// Nanoseconds per std::fma call over `calls` dependent calls.
double fma_call_ns(const float* values, int calls, float& sink) {
  float sum = sink;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) sum = std::fma(values[i & 1023], values[(i * 7) & 1023], sum);
  const auto stop = std::chrono::steady_clock::now();
  sink = sum;
  return std::chrono::duration<double, std::nano>(stop - start).count() / calls;
}

}  // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("{\"skipped\": \"this CPU has no AVX-512\"}\n");
    return 0;
  }
  static float values[1024];
  for (int i = 0; i < 1024; ++i) values[i] = 1e-3f * static_cast<float>(i);
  constexpr int calls = 2'000'000;
  float sink = 0;
  const double clean = fma_call_ns(values, calls, sink);
  dirty_zmm();
  const double dirty = fma_call_ns(values, calls, sink);
  clean_upper_state();
  const double cleaned = fma_call_ns(values, calls, sink);
  std::printf("{\"ns_per_call_clean\": %.2f, \"ns_per_call_after_zmm\": %.2f, \"ns_per_call_after_vzeroupper\": %.2f, "
              "\"sink\": %g}\n",
              clean, dirty, cleaned, static_cast<double>(sink));
  return 0;
}
