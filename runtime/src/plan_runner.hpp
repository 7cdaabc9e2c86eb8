// Runs a fused plan: each step reads materialised values and writes new ones. Internal to runtime/.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/reduce_kernel.hpp>

#include "ir/passes/fuse.hpp"

namespace tensorjit::detail {

// The materialised values of a running plan, by node of the plan's graph.
class ValueTable {
 public:
  // Inputs whose buffer is `slot` read `buffer` instead (a cached plan's inputs are slots).
  void bind(const ir::Buffer* slot, std::shared_ptr<ir::Buffer> buffer) { bindings_[slot] = std::move(buffer); }
  void put(const ir::Node* node, ir::Value value) { values_[node] = std::move(value); }
  void drop(const ir::Node* node) { values_.erase(node); }
  bool has(const ir::Node* node) const { return values_.count(node) != 0; }
  // The value of any node that needs no computation of its own here: an input, a constant (one
  // element with zero strides), a materialised node, or a view chain over one of these.
  ir::Value resolve(const ir::NodePtr& node) const;
  // The address of the first element of resolve(node)'s layout; for an input or a materialised
  // node without copying its layout (a launch's hot path).
  const void* first_element(const ir::NodePtr& node) const;

 private:
  std::unordered_map<const ir::Node*, ir::Value> values_;
  std::unordered_map<const ir::Buffer*, std::shared_ptr<ir::Buffer>> bindings_;
};

// Where a step writes its kernel dumps; empty when not dumping.
struct StepDump {
  std::filesystem::path folder;
  std::string kernel_name;
};

// What running a loop step needs beyond its buffers: the compiled kernel, the values it reads in
// argument order, and the collapsed domain with each argument's strides. It depends only on the
// plan (whose layouts are fixed), so an executable reuses it for every run.
struct PreparedLoop {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  ir::Shape domain;
  ir::Shape collapsed_shape;
  std::vector<std::int64_t> input_strides;  // leaves x codegen::kMaxLoopRank
  // Non-zero when an input is read transposed (runtime/src/loop_step.cpp, "Tiles"): the kernel
  // is of the tile form and runs once per block of tile_rows x tile_columns of the rank-2 domain.
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
};

// Who launches a loop step's kernel. launch_loop_step runs the whole domain and may run it block
// by block (the tile form, for an input read transposed). run_row_step calls the kernel itself on
// ranges of elements of the domain, chunk of rows by chunk, which only the flat form takes.
enum class LoopLaunch { whole_domain, element_ranges };

// Compiles (or finds) the step's kernel; `values` must hold every value the step reads.
std::shared_ptr<const PreparedLoop> prepare_loop_step(const ir::Step& step, const ValueTable& values,
                                                     const StepDump& dump,
                                                     LoopLaunch launch = LoopLaunch::whole_domain);
void launch_loop_step(const PreparedLoop& prepared, const ir::Step& step, ValueTable& values);
void run_single_step(const ir::Step& step, ValueTable& values);

// What running a product step needs beyond its buffers (runtime/src/product_step.cpp): the
// epilogue's kernel, a loop kernel of the tile form over one tile [rows, columns] of C, whose
// input 0 is the tile and inputs 1... the leaves. Like PreparedLoop, it depends only on the plan.
struct PreparedProduct {
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
};

std::shared_ptr<const PreparedProduct> prepare_product_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump);
void launch_product_step(const PreparedProduct& prepared, const ir::Step& step, ValueTable& values);

// A reduction with its producers and consumers, as one JIT'd kernel (reduce_step.cpp): the
// kernel, the values it reads in argument order (producer inputs, then consumer inputs) and its
// arguments but for the buffers. Like PreparedLoop, it depends only on the plan.
struct PreparedReduce {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  std::vector<std::int64_t> input_strides;  // leaves x (2 * codegen::kMaxLoopRank)
  codegen::ReduceArgs arguments{};          // shapes, counts; no pointers
  std::int64_t output_count = 0;
  std::size_t partial_bytes = 0;  // one block partial (codegen::reduce_partial_bytes)
};

std::shared_ptr<const PreparedReduce> prepare_reduce_step(const ir::Step& step, const ValueTable& values,
                                                         const StepDump& dump);
void launch_reduce_step(const PreparedReduce& prepared, const ir::Step& step, ValueTable& values);

// A row step as one JIT'd row kernel (row_kernel_step.cpp): the kernel, the memory values it
// reads in argument order with their (row, column) strides, its scratch rows. A null kernel means
// some operand's rows or columns do not merge into one axis: the step runs part by part instead
// (run_row_step). Like PreparedLoop, it depends only on the plan.
struct PreparedRow {
  codegen::KernelHandle kernel;
  std::vector<ir::NodePtr> leaves;
  std::vector<std::int64_t> input_strides;  // leaves x 2: per row, per column
  std::vector<DType> scratch;               // one row of `columns` elements each, per task
  std::int64_t rows = 0;
  std::int64_t columns = 0;
};

std::shared_ptr<const PreparedRow> prepare_row_kernel_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump);
void launch_row_kernel_step(const PreparedRow& prepared, const ir::Step& step, ValueTable& values);

// A row step's parts on each chunk of rows in turn (row_step.cpp): the steps no row kernel takes.
void run_row_step(const ir::Step& step, ValueTable& values, const StepDump& dump);

// Per step, what an earlier run prepared (empty until then). Shared by concurrent runs of one plan.
struct PlanCache {
  explicit PlanCache(std::size_t steps) : loops(steps), products(steps), reduces(steps), rows(steps) {}
  std::vector<std::atomic<std::shared_ptr<const PreparedLoop>>> loops;
  std::vector<std::atomic<std::shared_ptr<const PreparedProduct>>> products;
  std::vector<std::atomic<std::shared_ptr<const PreparedReduce>>> reduces;
  std::vector<std::atomic<std::shared_ptr<const PreparedRow>>> rows;
};

// How long each step took, in plan order (filled when asked for).
struct StepTimes {
  std::vector<std::chrono::nanoseconds> steps;
};

// One value per graph output, computed by running every step of the plan in order. Kernels dump
// into `dump_folder` when it is not empty.
// `values` may hold bindings already (ValueTable::bind); `cache`, when given, keeps prepared steps.
std::vector<ir::Value> run_plan(const ir::Plan& plan, const std::filesystem::path& dump_folder,
                                StepTimes* times = nullptr, ValueTable values = {},
                                PlanCache* cache = nullptr);

}  // namespace tensorjit::detail
