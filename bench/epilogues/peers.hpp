// The peers of bench/epilogues, each as its users write it. All matrices are row-major and
// contiguous: x is rows × in, w is in × out, y is rows × out.
#pragma once

#include <cstdint>

namespace epilogue_bench {

// y = max(y + bias, 0) over a rows × columns matrix, bias along the columns: the pass a BLAS user
// runs after sgemm.
void bias_relu_pass(float* y, const float* bias, std::int64_t rows, std::int64_t columns);

// The MLP forward relu(x·w1 + b1)·w2 + b2 with Eigen's expressions (its own GEMM).
struct MlpWeights {
  const float *w1, *b1, *w2, *b2;
  std::int64_t in, hidden, out;
};
void eigen_mlp(const float* x, std::int64_t rows, const MlpWeights& weights, float* hidden, float* y);
void eigen_set_threads(int threads);

}  // namespace epilogue_bench
