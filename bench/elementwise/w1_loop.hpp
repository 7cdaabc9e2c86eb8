// W1 written by hand in C++: the peer the JIT'd kernel is measured against (w1_loop.cpp is built
// with -O3 -march=native -fno-trapping-math -ffp-contract=off).
#pragma once

#include <cstdint>

namespace tensorjit::bench {

// y[i] = maximum(a[i]*b[i] + c[i], 0) * 0.5, with maximum as the interpreter defines it (a NaN sum
// is kept; a tie keeps the sum, so -0.0 stays -0.0).
void w1_loop(const float* a, const float* b, const float* c, float* y, std::int64_t count);

}  // namespace tensorjit::bench
