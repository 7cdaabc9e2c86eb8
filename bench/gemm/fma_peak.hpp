// The machine's FMA peak, measured in the benchmark's own run (bench/README.md): a register-resident
// loop of independent FMA chains at the widest width the CPU has, on `threads` threads.
#pragma once

namespace gemm_bench {

struct FmaPeak {
  double float_gflops = 0;
  double double_gflops = 0;
  const char* width = "";
};

// cpu_clock: rate per thread CPU second (a loaded machine's time slices excluded), else wall time.
FmaPeak measure_fma_peak(int threads, bool cpu_clock);

}  // namespace gemm_bench
