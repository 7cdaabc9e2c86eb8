// The peer loops of vecmath_peers: y[i] = f(x[i]) (pow: f(x[i], x2[i]); x2 is ignored by the others)
// over `count` floats, by glibc's scalar libm and by glibc's libmvec vector functions (count a
// multiple of 16).
#pragma once

#include <cstdint>
#include <string>

namespace tensorjit::bench {

using FloatLoop = void (*)(const float* x, const float* x2, float* y, std::int64_t count);

// The function named `name` (exp, log, tanh, erf, sin, cos, pow), nullptr if there is none.
FloatLoop scalar_libm_loop(const std::string& name);
FloatLoop libmvec_avx2_loop(const std::string& name);
FloatLoop libmvec_avx512_loop(const std::string& name);

}  // namespace tensorjit::bench
