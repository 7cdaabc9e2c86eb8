// STREAM's triad a[i] = b[i] + s * c[i] over f64 arrays, the loop the memory bandwidth is measured
// with (bench/README.md, "Limits first"), for bench/limits' stream_triad and for reductions_peers,
// which reads its workloads against the bandwidth measured in its own run. triad_loop.cpp is built
// for the host (-O3 -march=native) with OpenMP, whatever the flags of the program that links it.
#pragma once

#include <memory>

namespace bench {

struct TriadArrays {
  long n = 0;  // doubles per array
  std::unique_ptr<double[]> a, b, c;
};

// Each of `threads` threads first touches the part it later streams, so pages sit where they are
// used.
TriadArrays triad_arrays(long n, int threads);

// One pass a = b + scalar * c on `threads` threads; returns its wall seconds.
double triad_pass_seconds(TriadArrays& arrays, double scalar, int threads);

}  // namespace bench
