// The dense layer relu(x·W + b) and the MLP x -> relu(x·W1 + b1)·W2 + b2 (W8) for the library
// peers, each the way its users write it: a BLAS GEMM then a bias pass, Eigen's expression, and
// oneDNN's matmul primitive with the bias and the relu as post-ops (its epilogue fusion).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "../gemm/blas_peers.hpp"

namespace bench {

// All matrices row-major and contiguous; x is batch × in, w is in × out, y is batch × out.
struct DenseShape {
  std::int64_t batch, in, out;
};

// One layer as a callable: y = x·w + bias, then relu when asked.
using DenseLayer = std::function<void(const float* x, const float* w, const float* bias, float* y)>;

DenseLayer blas_dense(const gemm_bench::Peer& peer, DenseShape shape, bool relu);
DenseLayer eigen_dense(DenseShape shape, bool relu);
// Built only when oneDNN's headers and library were found (TENSORJIT_BENCH_HAVE_ONEDNN), as the
// library bench_onednn_dense, which bench/epilogues' epilogue_peers links as well.
DenseLayer onednn_dense(DenseShape shape, bool relu);

}  // namespace bench
