// Fused scan kernels: the contract between the fusion plan (ir/passes/fuse_scans,
// runtime/src/scan_step.cpp) and the lowering to LLVM IR (codegen/src/lower/lower_scan.cpp).
// LLVM-free.
//
// A kernel computes one scan (cumsum) along one axis of its domain, with a `producer` expression
// before it and a `consumer` expression after it, all over the same domain:
//
//   producer: elementwise ops whose leaves are `input` nodes (the producer inputs) and constants;
//             its one output is the value scanned. With no producer ops it is a single input leaf.
//   consumer: elementwise ops whose leaves are `result` (an input node of the scan's dtype standing
//             for the running sum), the consumer inputs and constants; its outputs are the
//             kernel's outputs (`result` itself may be one of them).
//
// The domain is split by the caller into the scanned axis, of extent n >= 1, and the other axes,
// the "line" axes (row-major, merged where the strides allow, at most kMaxLoopRank; [1] when there
// are none): each line is one independent scan. Line l (row-major over the line axes) at position
// i reads input k at inputs[k] + sum_d line_index_d * input_strides[k][d] + i * input_strides[k]
// [kMaxLoopRank] and writes output j likewise through output_strides (in elements, any sign).
//
// The order is the interpreter's (ir/src/interpreter_scan.cpp): acc = element 0, then for i = 1 ..
// n - 1, acc = acc + element i, each a plain IEEE add in the accumulator dtype (integers and bool:
// i64, wrapping), and the consumer sees acc at every position. Lines are independent, so where an
// operand walks them contiguously (a scan over an outer axis) the lowering runs many side by side
// in the lanes of a strip of vectors along the innermost line axis; otherwise (a scan over the
// last axis: each line a row) each line runs in a single lane, reading its row in order. Each lane
// does the same adds in the same order, so any split of the lines, any width and any thread count
// give the same bits.
#pragma once

#include <cstdint>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::codegen {

// Strides per operand: the line axes (kMaxLoopRank slots), then the scanned axis.
inline constexpr int kScanStrides = kMaxLoopRank + 1;

struct ScanArgs {
  std::int64_t line_rank;                 // 1..kMaxLoopRank
  std::int64_t line_shape[kMaxLoopRank];
  std::int64_t extent;                    // n >= 1: the scanned axis
  const void* const* inputs;              // producer inputs, then consumer inputs
  const std::int64_t* input_strides;      // inputs x kScanStrides
  void* const* outputs;                   // one per consumer output
  const std::int64_t* output_strides;     // outputs x kScanStrides
};

// Scans lines [begin, end) (row-major over the line axes).
using ScanFunction = void(const ScanArgs* args, std::int64_t begin, std::int64_t end);

struct ScanKernelSpec {
  ir::Op op = ir::Op::cumsum;
  ir::Graph producer;                        // one output: the value scanned
  std::vector<ir::NodePtr> producer_inputs;  // its `input` leaves, in argument order
  ir::NodePtr result;                        // the `input` leaf standing for the running sum
  ir::Graph consumer;                        // outputs: the kernel's outputs
  std::vector<ir::NodePtr> consumer_inputs;  // its other `input` leaves, in argument order
  // How each input (producer inputs, then consumer inputs) and each output is walked along the
  // innermost line axis.
  std::vector<InnerAccess> input_access;
  std::vector<InnerAccess> output_access;
};

// The dtype a scan of `input_dtype` accumulates in and gives (ir::scan_result_dtype).
DType scan_accumulator_dtype(DType input_dtype);

// Compiles (or finds in the Jit's caches) the kernel; the handle's address is a ScanFunction.
KernelHandle compile_scan_kernel(Jit& jit, const ScanKernelSpec& spec, const DumpRequest* dump = nullptr);

}  // namespace tensorjit::codegen
