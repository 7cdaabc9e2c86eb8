// The peers of bench/epilogues, each as its users write it. All matrices are row-major and
// contiguous: x is rows × in, w is in × out, y is rows × out.
#pragma once

#include <cstdint>
#include <functional>

namespace epilogue_bench {

// y = max(y + bias, 0) over a rows × columns matrix, bias along the columns: the pass a BLAS user
// runs after sgemm.
void bias_relu_pass(float* y, const float* bias, std::int64_t rows, std::int64_t columns);

// relu(x·w + bias), made once per shape (as a framework caches a primitive), then called.
using DenseLayer = std::function<void(const float* x, const float* w, const float* bias, float* y)>;
// oneDNN's matmul primitive with the bias argument and relu as an eltwise post-op.
DenseLayer onednn_dense_relu(std::int64_t rows, std::int64_t in, std::int64_t out);

// The MLP forward relu(x·w1 + b1)·w2 + b2 with Eigen's expressions (its own GEMM).
struct MlpWeights {
  const float *w1, *b1, *w2, *b2;
  std::int64_t in, hidden, out;
};
void eigen_mlp(const float* x, std::int64_t rows, const MlpWeights& weights, float* hidden, float* y);
void eigen_set_threads(int threads);

}  // namespace epilogue_bench
