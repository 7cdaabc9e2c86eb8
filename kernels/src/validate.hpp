// Argument checks shared by gemm() and reference_gemm(): a caller's mistake throws
// std::invalid_argument naming the function and the offending values, before anything is written.
#pragma once

#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels::detail {

template <class T>
void validate_arguments(const GemmArgs<T>& args, const char* function);

void validate_options(const GemmOptions& options, const char* function);

}  // namespace tensorjit::kernels::detail
