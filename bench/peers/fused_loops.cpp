#include "fused_loops.hpp"

#include <algorithm>
#include <cmath>

namespace bench::loops {

void w1(const float* __restrict a, const float* __restrict b, const float* __restrict c, float* __restrict y,
        std::int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float sum = a[i] * b[i] + c[i];
    y[i] = (sum != sum || sum >= 0.0f ? sum : 0.0f) * 0.5f;  // maximum keeps a NaN, as tensorjit does
  }
}

void w2(const float* __restrict x, float* __restrict y, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = std::tanh(v) * (1.0f / (1.0f + std::exp(-v))) + std::exp(-v * v);
  }
}

void w3_outer(const float* __restrict a, const float* __restrict b, const float* __restrict c, float* __restrict y,
              std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = a[i * cols + j] + b[j] * c[i];
}

// b is cols x rows; tiles keep both the rows of a and the columns of b in L1.
void w3_transpose(const float* __restrict a, const float* __restrict b, float* __restrict y, std::int64_t rows,
                  std::int64_t cols) {
  constexpr std::int64_t tile = 64;
#pragma omp parallel for schedule(static)
  for (std::int64_t i0 = 0; i0 < rows; i0 += tile)
    for (std::int64_t j0 = 0; j0 < cols; j0 += tile)
      for (std::int64_t i = i0; i < std::min(rows, i0 + tile); ++i)
        for (std::int64_t j = j0; j < std::min(cols, j0 + tile); ++j)
          y[i * cols + j] = a[i * cols + j] + b[j * rows + i];
}

float sum(const float* __restrict x, std::int64_t n) {
  float total = 0;
#pragma omp parallel for simd reduction(+ : total) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) total += x[i];
  return total;
}

void sum_axis0(const float* __restrict x, float* __restrict y, std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t block = 512;  // a block of columns per thread, its partial sums in L1
#pragma omp parallel for schedule(static)
  for (std::int64_t j0 = 0; j0 < cols; j0 += block) {
    const std::int64_t j1 = std::min(cols, j0 + block);
    for (std::int64_t j = j0; j < j1; ++j) y[j] = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = j0; j < j1; ++j) y[j] += x[i * cols + j];
  }
}

void sum_axis1(const float* __restrict x, float* __restrict y, std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    float total = 0;
#pragma omp simd reduction(+ : total)
    for (std::int64_t j = 0; j < cols; ++j) total += x[i * cols + j];
    y[i] = total;
  }
}

float max(const float* __restrict x, std::int64_t n) {
  float largest = -INFINITY;
#pragma omp parallel for simd reduction(max : largest) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, x[i]);
  return largest;
}

template <class T>
void softmax_rows(const T* __restrict x, T* __restrict y, std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    const T* row = x + i * cols;
    T* out = y + i * cols;
    T largest = -INFINITY;
#pragma omp simd reduction(max : largest)
    for (std::int64_t j = 0; j < cols; ++j) largest = std::max(largest, row[j]);
    T total = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      out[j] = std::exp(row[j] - largest);
      total += out[j];
    }
    const T scale = T(1) / total;
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) out[j] *= scale;
  }
}
template void softmax_rows<float>(const float*, float*, std::int64_t, std::int64_t);
template void softmax_rows<double>(const double*, double*, std::int64_t, std::int64_t);

void layernorm_rows(const float* __restrict x, const float* __restrict gamma, const float* __restrict beta,
                    float* __restrict y, std::int64_t rows, std::int64_t cols, float eps) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* row = x + i * cols;
    float total = 0;
#pragma omp simd reduction(+ : total)
    for (std::int64_t j = 0; j < cols; ++j) total += row[j];
    const float mean = total / float(cols);
    float squares = 0;
#pragma omp simd reduction(+ : squares)
    for (std::int64_t j = 0; j < cols; ++j) squares += (row[j] - mean) * (row[j] - mean);
    const float inverse_deviation = 1.0f / std::sqrt(squares / float(cols) + eps);
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = (row[j] - mean) * inverse_deviation * gamma[j] + beta[j];
  }
}

void adam(const float* __restrict p, const float* __restrict g, const float* __restrict m,
          const float* __restrict v, float* __restrict p1, float* __restrict m1, float* __restrict v1,
          std::int64_t n, float beta1, float beta2, float eps, float step_size, float sqrt_correction2) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float new_m = m[i] + (g[i] - m[i]) * (1.0f - beta1);
    const float new_v = v[i] * beta2 + g[i] * g[i] * (1.0f - beta2);
    m1[i] = new_m;
    v1[i] = new_v;
    p1[i] = p[i] - new_m / (std::sqrt(new_v) / sqrt_correction2 + eps) * step_size;
  }
}

void bias_relu(float* __restrict y, const float* __restrict bias, std::int64_t rows, std::int64_t cols, bool relu) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) {
      const float value = y[i * cols + j] + bias[j];
      y[i * cols + j] = relu ? (value != value || value >= 0.0f ? value : 0.0f) : value;
    }
}

}  // namespace bench::loops
