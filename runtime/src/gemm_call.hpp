// A floating matmul on kernels::gemm (docs/gemm.md): the operands' layouts mapped to GemmArgs,
// the batch axes before the GEMM's own walked here, the pool as its parallel-for, and an optional
// epilogue. Internal to runtime/.
#pragma once

#include <cstdint>
#include <vector>

#include <tensorjit/ir/node.hpp>
#include <tensorjit/kernels/gemm.hpp>

#include "runtime/src/value_table.hpp"

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
// `rows_continue_across_batch`: along the GEMM's batch axis, every operand `function`, the store
// stage and `reads` use is M rows further on (its rows go on from one batch into the next), so
// run_gemm may fold the batch axis into the rows (the hook then sees batch 0 and rows up to
// batch × M).
template <typename T> struct GemmEpilogue {
  kernels::Epilogue<T> function = nullptr;
  void* context = nullptr;
  void (*begin_outer)(void* context, std::int64_t outer) = nullptr;
  const T* column_bias = nullptr;
  ir::Strides column_bias_strides;
  kernels::Activation activation = kernels::Activation::none;
  bool consumes_c = false;
  const std::vector<kernels::EpilogueRead>* reads = nullptr;
  bool rows_continue_across_batch = true;
};

// Whether a value's strides go on from one batch into the next: along the batch axis (rank - 3)
// the stride of `rows` rows. A value broadcast over both (zero strides) does too.
bool rows_continue_across_batch(const ir::Shape& shape, const ir::Strides& strides);

// A matmul's operand as the GEMM reads it: the value of `operand`, or, for a cast of f16/bf16 to f32
// that no step computed (fuse.hpp: the GEMM converts it as it packs), the 16-bit value under it.
ir::Value resolve_product_operand(const ValueTable& values, const ir::NodePtr& operand);

// C = A·B for values of rank >= 2 whose batch axes are already broadcast to C's (by strides; zero
// strides read one matrix for every batch). Operands are read in place through any strides; C is
// contiguous. T is float or double; with float, A and B may be f16 or bf16 values, which the GEMM
// converts to f32 exactly as it packs them (kernels::Storage). When B is one matrix for every batch of the GEMM's batch axis
// (stride 0) and A, C and the epilogue's operands continue their rows across it, the batches are
// one product of batch × M rows: B is packed once, not once per batch; the bits are the same (one
// FMA chain per element either way).
template <typename T>
void run_gemm(const ir::Value& a, const ir::Value& b, const ir::Value& c,
              const GemmEpilogue<T>& epilogue = {});

}  // namespace tensorjit::detail
