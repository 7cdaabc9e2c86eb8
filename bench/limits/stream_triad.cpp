// STREAM's triad (triad_loop.hpp) over f64 arrays far larger than the last-level cache: the memory
// bandwidth the memory-bound workloads are read against. Threads from OMP_NUM_THREADS. Like STREAM,
// it counts 24 bytes an element (no write-allocate traffic) and reports the best of its repetitions.
//
//   stream_triad [megabytes per array, default 256]   -> {"triad_gb_per_s": ..., "threads": ...}
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "triad_loop.hpp"

int main(int argc, char** argv) {
  const long megabytes = argc > 1 ? std::atol(argv[1]) : 256;
  const long n = megabytes * (1L << 20) / long(sizeof(double));
  const int threads = omp_get_max_threads();
  bench::TriadArrays arrays = bench::triad_arrays(n, threads);
  double best = 1e30;
  for (int repeat = 0; repeat < 10; ++repeat) best = std::min(best, bench::triad_pass_seconds(arrays, 3, threads));
  // "check" is a[n/2], 1 + 3 * 2 once a pass has run: the arrays were written.
  std::printf("{\"triad_gb_per_s\": %.2f, \"threads\": %d, \"megabytes_per_array\": %ld, \"check\": %g}\n",
              3.0 * double(n) * sizeof(double) / best * 1e-9, threads, megabytes, arrays.a[n / 2]);
  return 0;
}
