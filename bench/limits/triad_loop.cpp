#include "triad_loop.hpp"

#include <omp.h>

namespace bench {

TriadArrays triad_arrays(long n, int threads) {
  TriadArrays arrays{n, std::unique_ptr<double[]>(new double[n]), std::unique_ptr<double[]>(new double[n]),
                     std::unique_ptr<double[]>(new double[n])};
  double *a = arrays.a.get(), *b = arrays.b.get(), *c = arrays.c.get();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  return arrays;
}

double triad_pass_seconds(TriadArrays& arrays, double scalar, int threads) {
  const long n = arrays.n;
  double* a = arrays.a.get();
  const double *b = arrays.b.get(), *c = arrays.c.get();
  const double start = omp_get_wtime();
#pragma omp parallel for simd schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
  return omp_get_wtime() - start;
}

}  // namespace bench
