// The plain reference twin of gemm(): for every element one std::fma chain over k in increasing
// order from +0, the order gemm()'s contract promises, then the store stage, so tests compare the
// two bit for bit (tolerance zero). 16-bit operands are converted one element at a time in
// software.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tensorjit/kernels/gemm.hpp"
#include "narrow_float.hpp"
#include "validate.hpp"

namespace tensorjit::kernels {
namespace {

// The operand's element at `index` (16-bit storage converted in software, exactly).
template <class T>
[[gnu::always_inline]] inline T element(const MatrixView<T>& view, std::int64_t index) {
  if constexpr (sizeof(T) == 4) {
    if (view.storage == Storage::f16) return float_from_f16_bits(view.narrow[index]);
    if (view.storage == Storage::bf16) return float_from_bf16_bits(view.narrow[index]);
  }
  return view.data[index];
}

template <class T>
void reference_gemm_typed(const GemmArgs<T>& args) {
  detail::validate_arguments(args, "reference_gemm");
  if (args.m == 0 || args.n == 0) return;
  for (std::int64_t batch = 0; batch < args.batch; ++batch) {
    T* c = args.c.data + batch * args.c.batch_stride;
    // With k == 0, A and B may be null and are never read.
    const std::int64_t a_batch = batch * args.a.batch_stride, b_batch = batch * args.b.batch_stride;
    const T* bias = args.store_stage.column_bias;
    if (bias != nullptr) bias += batch * args.store_stage.column_bias_batch_stride;
    // Row by row, k outermost within a row: each element is still its own chain over k in
    // increasing order, and B is read along its rows (a walk down B's columns missed the cache at
    // every step once B outgrew L2, which made the reference most of the GEMM tests' time).
    std::vector<T> sums(static_cast<std::size_t>(args.n));
    for (std::int64_t i = 0; i < args.m; ++i) {
      std::fill(sums.begin(), sums.end(), T(0));
      for (std::int64_t p = 0; p < args.k; ++p) {
        const T a = element(args.a, a_batch + i * args.a.row_stride + p * args.a.col_stride);
        const std::int64_t b_row = b_batch + p * args.b.row_stride;
        for (std::int64_t j = 0; j < args.n; ++j)
          sums[j] = std::fma(a, element(args.b, b_row + j * args.b.col_stride), sums[j]);
      }
      for (std::int64_t j = 0; j < args.n; ++j) {
        T sum = sums[j];
        if (bias != nullptr) sum = sum + bias[j];
        if (args.store_stage.activation == Activation::relu) sum = sum <= T(0) ? T(0) : sum;
        c[i * args.c.row_stride + j] = sum;
      }
    }
    if (args.epilogue != nullptr)
      args.epilogue(args.epilogue_context, c, args.c.row_stride, 0, 0, args.m, args.n, batch);
  }
}

}  // namespace

void reference_gemm(const GemmArgs<float>& args) { reference_gemm_typed(args); }
void reference_gemm(const GemmArgs<double>& args) { reference_gemm_typed(args); }

}  // namespace tensorjit::kernels
