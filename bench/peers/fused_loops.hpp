// The hand-written fused C++ loops: the practical limit of each elementwise chain, reduction and
// row kernel, as a C++ programmer would write them. fused_loops.cpp is built with
// g++ -O3 -march=native -fno-trapping-math -ffp-contract=off -fopenmp: OpenMP spreads the outer
// loop over the threads OMP_NUM_THREADS allows, and a*b + c stays two roundings as in tensorjit.
// Without -fno-math-errno, g++ keeps the libm calls (exp, tanh) scalar: that is what these flags give.
#pragma once

#include <cstdint>

namespace bench::loops {

void w1(const float* a, const float* b, const float* c, float* y, std::int64_t n);   // max(a*b+c,0)*0.5
void w2(const float* x, float* y, std::int64_t n);  // tanh(x)*sigmoid(x) + exp(-x*x)
void w3_outer(const float* a, const float* b, const float* c, float* y, std::int64_t rows, std::int64_t cols);
void w3_transpose(const float* a, const float* b, float* y, std::int64_t rows, std::int64_t cols);
float sum(const float* x, std::int64_t n);
void sum_axis0(const float* x, float* y, std::int64_t rows, std::int64_t cols);
void sum_axis1(const float* x, float* y, std::int64_t rows, std::int64_t cols);
float max(const float* x, std::int64_t n);
template <class T> void softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols);
void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y, std::int64_t rows,
                    std::int64_t cols, float eps);
// Adam at PyTorch's formula (bench/README.md); step_size = lr / correction1.
void adam(const float* p, const float* g, const float* m, const float* v, float* p1, float* m1, float* v1,
          std::int64_t n, float beta1, float beta2, float eps, float step_size, float sqrt_correction2);
// y = relu(y + bias) over rows of `cols`: the pass after a BLAS GEMM in the dense layer.
void bias_relu(float* y, const float* bias, std::int64_t rows, std::int64_t cols, bool relu);

}  // namespace bench::loops
