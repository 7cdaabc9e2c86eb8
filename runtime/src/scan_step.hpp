// A scan step: producer ops, one scan (cumsum), consumer ops (fuse_scans.hpp) as one JIT'd scan
// kernel (codegen/scan_kernel.hpp) (scan_step.cpp).
#pragma once

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/scan_kernel.hpp>

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// The kernel, the values it reads in argument order (producer inputs, then consumer inputs) and
// its arguments but for the buffers.
struct PreparedScan final : PreparedStep {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  std::vector<std::int64_t> input_strides;   // leaves x codegen::kScanStrides
  std::vector<std::int64_t> output_strides;  // outputs x codegen::kScanStrides
  codegen::ScanArgs arguments{};             // shapes; no pointers
  std::int64_t line_count = 0;

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override;
};

std::shared_ptr<const PreparedScan> prepare_scan_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump);

}  // namespace tensorjit::detail
