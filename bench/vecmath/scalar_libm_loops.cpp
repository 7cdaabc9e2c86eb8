#include <cmath>

#include "loops.hpp"

namespace tensorjit::bench {
namespace {

template <float (*function)(float)> void apply(const float* x, const float*, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) y[i] = function(x[i]);
}

void apply_pow(const float* x, const float* x2, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) y[i] = ::powf(x[i], x2[i]);
}

}  // namespace

FloatLoop scalar_libm_loop(const std::string& name) {
  if (name == "exp") return apply<::expf>;
  if (name == "log") return apply<::logf>;
  if (name == "tanh") return apply<::tanhf>;
  if (name == "erf") return apply<::erff>;
  if (name == "sin") return apply<::sinf>;
  if (name == "cos") return apply<::cosf>;
  if (name == "pow") return apply_pow;
  return nullptr;
}

}  // namespace tensorjit::bench
