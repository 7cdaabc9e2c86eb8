// STREAM's triad a[i] = b[i] + s * c[i] over f64 arrays far larger than the last-level cache: the
// memory bandwidth the memory-bound workloads are read against. Threads from OMP_NUM_THREADS; each
// thread first touches the part it later streams, so pages sit where they are used. Like STREAM, it
// counts 24 bytes an element (no write-allocate traffic) and reports the best of its repetitions.
//
//   stream_triad [megabytes per array, default 256]   -> {"triad_gb_per_s": ..., "threads": ...}
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

int main(int argc, char** argv) {
  const long megabytes = argc > 1 ? std::atol(argv[1]) : 256;
  const long n = megabytes * (1L << 20) / long(sizeof(double));
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  const double scalar = 3;
  double best = 1e30;
  for (int repeat = 0; repeat < 10; ++repeat) {
    const double start = omp_get_wtime();
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    best = std::min(best, omp_get_wtime() - start);
  }
  // Reading a[] keeps the stores from being optimized away.
  std::printf("{\"triad_gb_per_s\": %.2f, \"threads\": %d, \"megabytes_per_array\": %ld, \"check\": %g}\n",
              3.0 * double(n) * sizeof(double) / best * 1e-9, omp_get_max_threads(), megabytes, a[n / 2]);
  return 0;
}
