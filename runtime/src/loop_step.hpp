// A loop step: the group's ops as one JIT'd kernel over the step's domain (loop_step.cpp).
#pragma once

#include <span>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/loop_kernel.hpp>

#include "runtime/src/step_kind.hpp"

namespace tensorjit::detail {

// Where a loop step inside a concat step writes one of its outputs (concat_step.hpp): at `layout`
// (of the output's shape) of the buffer of `into`, the concat, which the concat step allocates
// before its parts run. `into` null: a contiguous buffer of the output's own.
struct OutputPlace {
  const ir::Node* into = nullptr;
  ir::Layout layout;
};

// The compiled kernel, the values it reads in argument order, and the collapsed domain with each
// argument's strides.
struct PreparedLoop final : PreparedStep {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  ir::Shape domain;
  ir::Shape collapsed_shape;
  std::vector<std::int64_t> input_strides;  // leaves x codegen::kMaxLoopRank
  // Non-zero when an input is read transposed (loop_step.cpp, "Tiles"): the kernel is of the tile
  // form and runs once per block of tile_rows x tile_columns of the rank-2 domain.
  std::int64_t tile_rows = 0;
  std::int64_t tile_columns = 0;
  std::vector<std::int64_t> input_itemsizes;  // bytes, one per leaf (tiles offset the pointers)
  // The inputs read transposed: each block of one is first copied into a scratch tile of
  // tile_rows x tile_columns (row stride tile_columns), which the kernel reads as contiguous.
  struct StagedInput {
    std::size_t leaf;
    std::int64_t row_stride, column_stride;  // the leaf's, in elements
  };
  std::vector<StagedInput> staged;
  // Per leaf: the gather that reads it at its indices, or null (loop_kernel.hpp, "Gathers"), and
  // the indexed axis's extent and stride (codegen::LoopArgs::gather_bounds).
  std::vector<ir::NodePtr> gathers;
  std::vector<std::int64_t> gather_bounds;  // leaves x 2
  // Per leaf: where a gathered leaf that is no value of the plan is read (a literal constant, made
  // a one-element buffer held here; an axis of no elements), else null.
  std::vector<const void*> fixed_pointers;
  std::vector<std::shared_ptr<ir::Buffer>> held;
  // Empty, or one per output: where it is written. A placed output whose region the collapsed
  // domain walks as one contiguous range is written by the flat form at its first element; when
  // some is not, the kernel is of the placed form and writes through output_strides.
  std::vector<OutputPlace> places;
  std::vector<std::int64_t> output_strides;  // outputs x codegen::kMaxLoopRank, placed form only

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override;
};

// After a launch of a kernel that gathers (a loop or row kernel): the index out of range at the
// earliest position the calls met (one record per call, `faults`), as the tensorjit::Error of the
// gather that reads input `fault.input` (`gathers`, per input). Returns when there is none.
void throw_first_index_fault(const std::vector<ir::NodePtr>& gathers, std::span<const codegen::IndexFault> faults);

// Who launches a loop step's kernel. PreparedLoop::launch runs the whole domain and may run it
// block by block (the tile form, for an input read transposed). run_row_step calls the kernel
// itself on ranges of elements of the domain, chunk of rows by chunk, which only the flat form takes.
enum class LoopLaunch { whole_domain, element_ranges };

std::shared_ptr<const PreparedLoop> prepare_loop_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump,
                                                     LoopLaunch launch = LoopLaunch::whole_domain,
                                                     std::vector<OutputPlace> places = {});

}  // namespace tensorjit::detail
