// A floating matmul on kernels::gemm (docs/gemm.md): the operands' layouts mapped to GemmArgs,
// the batch axes before the GEMM's own walked here, the pool as its parallel-for, and an optional
// epilogue. Internal to runtime/.
#pragma once

#include <cstdint>
#include <vector>

#include <tensorjit/ir/node.hpp>
#include <tensorjit/kernels/gemm.hpp>

namespace tensorjit::detail {

// The hook kernels::gemm calls on each finished tile of C, and what it must know of the batch axes
// the GEMM does not see: before each gemm call, `begin_outer(context, outer)` names the index of
// the axes before the last batch axis (row-major over them; 0 when there are none) that the call
// computes. The GEMM's own batch index, rows and columns reach `function` with each tile.
// The store stage (kernels::StoreStage), applied before `function`: a bias along C's columns at
// `column_bias`, read through `column_bias_strides` (one per axis of C; the row stride is 0 and the
// column stride 1), then the activation. `consumes_c`: `function` writes every result itself and
// C's values are only its input (kernels::GemmArgs::epilogue_consumes_c). `reads`: operands
// `function` reads along with each region, for the GEMM to prefetch
// (kernels::GemmArgs::epilogue_reads); read after each begin_outer, which may move them.
template <typename T> struct GemmEpilogue {
  kernels::Epilogue<T> function = nullptr;
  void* context = nullptr;
  void (*begin_outer)(void* context, std::int64_t outer) = nullptr;
  const T* column_bias = nullptr;
  ir::Strides column_bias_strides;
  kernels::Activation activation = kernels::Activation::none;
  bool consumes_c = false;
  const std::vector<kernels::EpilogueRead>* reads = nullptr;
};

// C = A·B for values of rank >= 2 whose batch axes are already broadcast to C's (by strides; zero
// strides read one matrix for every batch). Operands are read in place through any strides; C is
// contiguous. T is float or double.
template <typename T>
void run_gemm(const ir::Value& a, const ir::Value& b, const ir::Value& c,
              const GemmEpilogue<T>& epilogue = {});

}  // namespace tensorjit::detail
