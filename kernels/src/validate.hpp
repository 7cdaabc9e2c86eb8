// Argument checks shared by gemm() and reference_gemm(): a caller's mistake throws
// std::invalid_argument naming the function and the offending values, before anything is written.
#pragma once

#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels::detail {

template <class T>
void validate_arguments(const GemmArgs<T>& args, const char* function);

void validate_options(const GemmOptions& options, const char* function);

// GemmArgs::packed_b (when set) against the kernel the call runs: its panel width must be that
// kernel's NR, and it stands for one B, so the batches must share B.
template <class T>
void validate_packed_b(const GemmArgs<T>& args, int kernel_nr, const char* function);

// pack_b's arguments.
template <class T>
void validate_pack_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, const T* destination,
                     const char* function);

}  // namespace tensorjit::kernels::detail
