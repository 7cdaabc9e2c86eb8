// A product step: a matmul on the packed GEMM with its elementwise consumers as the epilogue of
// each finished region of C (product_step.cpp).
#pragma once

#include <tensorjit/codegen/jit.hpp>

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// The epilogue's kernel, a loop kernel of the tile form over one tile [rows, columns] of C, whose
// input 0 is the tile and inputs 1... the leaves.
struct PreparedProduct final : PreparedStep {
  // When the epilogue is only a bias along the rows and/or relu (`relu(p + b)`, `p + b`,
  // `relu(p)`), the GEMM applies it to its accumulators before the store (kernels::StoreStage)
  // and no kernel is compiled: `kernel` is empty, `stage_bias_leaf` is the bias's index in
  // `leaves` (or -1), and the one output is written over C.
  bool store_stage = false;
  int stage_bias_leaf = -1;
  bool stage_relu = false;
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;          // what the epilogue reads besides the product
  std::vector<ir::Strides> leaf_strides;    // each leaf's strides over the product's shape
  // Every leaf's rows go on across the GEMM's batch axis (GemmEpilogue::rows_continue_across_batch).
  bool rows_continue_across_batch = true;
  // The leaves the GEMM prefetches while it computes each region (kernels::GemmArgs::epilogue_reads),
  // by index in `leaves`: those whose rows the kernel reads (row stride not 0, contiguous columns),
  // at most kernels::kMaxEpilogueReads. The kernel does not prefetch them itself.
  std::vector<std::size_t> prefetched_leaves;
  std::vector<ir::NodePtr> outputs;         // the epilogue's outputs (the step's, less the product)
  int in_place_output = -1;                 // the output written over C, or -1
  std::vector<std::int64_t> input_strides;   // (1 + leaves) x codegen::kMaxLoopRank
  std::vector<std::int64_t> output_strides;  // outputs x codegen::kMaxLoopRank
  // The kernel writes its outputs with streaming stores and the GEMM hands it each region in a
  // scratch buffer (kernels::GemmArgs::epilogue_consumes_c): outputs too large for the caches,
  // and the product not an output itself.
  bool consumes_c = false;

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override;
};

std::shared_ptr<const PreparedProduct> prepare_product_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump);

}  // namespace tensorjit::detail
