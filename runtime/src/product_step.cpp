// A product step (ir/passes/fuse_epilogues.hpp): a floating matmul on kernels::gemm whose
// elementwise consumers run as its epilogue. On each finished tile of C, while it is in L1, one
// call of a JIT'd loop kernel of the tile form over the tile's [rows, columns] reads the product
// (input 0, strides [ldc, 1]) and the other leaves through their own strides, and writes each
// output through its strides: over C itself when the output has the product's dtype and nothing
// else needs the product, otherwise into a buffer of its own. Outputs too large for the caches
// (TENSORJIT_STREAMING_MB, as for loop steps) are written with non-temporal stores, and when the
// product itself is not needed the GEMM hands each region over in a scratch buffer instead of
// storing it to C (kernels::GemmArgs::epilogue_consumes_c): C's memory is then written once, by
// the epilogue, without being read first. The product's bits are the GEMM's
// (one FMA chain per element) and the epilogue's are the loop kernel's, so the result equals the
// unfused composition bit for bit. A bias along the rows and/or relu alone are applied by the
// GEMM itself to its accumulators before the store (kernels::StoreStage), with the same IEEE
// operations as the loop kernel: no kernel call per tile, and C is not reloaded.
#include "runtime/src/product_step.hpp"

#include <algorithm>
#include <array>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/config.hpp"
#include "runtime/src/gemm_call.hpp"
#include "runtime/src/jit_instance.hpp"
#include "runtime/src/operand_layout.hpp"
#include "runtime/src/step_expression.hpp"

namespace tensorjit::detail {
namespace {

// Where each operand of the epilogue lives for one run: its element (0, ..., 0) and its strides
// in bytes over the GEMM's batch axis, rows and columns; `outer_base` is moved to the current
// index of the batch axes before those by begin_outer.
struct TileOperand {
  char* base = nullptr;
  std::vector<std::int64_t> outer_strides;  // bytes, one per axis before the GEMM's batch axis
  std::int64_t batch_stride = 0, row_stride = 0, column_stride = 0;  // bytes
  char* outer_base = nullptr;
};

TileOperand tile_operand(char* base, const ir::Strides& strides, std::size_t itemsize) {
  const std::size_t rank = strides.size();
  const auto bytes = static_cast<std::int64_t>(itemsize);
  TileOperand operand;
  operand.base = operand.outer_base = base;
  for (std::size_t d = 0; d + 3 < rank; ++d) operand.outer_strides.push_back(strides[d] * bytes);
  if (rank > 2) operand.batch_stride = strides[rank - 3] * bytes;
  operand.row_stride = strides[rank - 2] * bytes;
  operand.column_stride = strides[rank - 1] * bytes;
  return operand;
}

// Where `operand`'s element (row0, col0) of GEMM batch `batch` is.
char* region_start(const TileOperand& operand, std::int64_t batch, std::int64_t row0, std::int64_t col0) {
  return operand.outer_base + batch * operand.batch_stride + row0 * operand.row_stride + col0 * operand.column_stride;
}

struct EpilogueContext {
  codegen::LoopFunction* function = nullptr;
  const PreparedProduct* prepared = nullptr;
  ir::Shape outer_shape;                  // the axes before the GEMM's batch axis
  std::vector<TileOperand> leaves;
  std::vector<TileOperand> outputs;
  // PreparedProduct::prefetched_leaves at the current outer index (begin_outer), for the GEMM to
  // prefetch (kernels::GemmArgs::epilogue_reads).
  std::vector<kernels::EpilogueRead> reads;
};

void begin_outer(void* context, std::int64_t outer) {
  auto& e = *static_cast<EpilogueContext*>(context);
  auto move = [&](TileOperand& operand) {
    std::int64_t rest = outer, offset = 0;
    for (std::size_t d = e.outer_shape.size(); d-- > 0;) {
      offset += rest % e.outer_shape[d] * operand.outer_strides[d];
      rest /= e.outer_shape[d];
    }
    operand.outer_base = operand.base + offset;
  };
  for (auto& leaf : e.leaves) move(leaf);
  for (auto& output : e.outputs) move(output);
  e.reads.clear();
  for (std::size_t k : e.prepared->prefetched_leaves) {
    const TileOperand& leaf = e.leaves[k];  // contiguous columns: the column stride is the element's size
    e.reads.push_back({leaf.outer_base, leaf.row_stride, leaf.batch_stride, leaf.column_stride});
  }
}

// The kernels::Epilogue<T> trampoline: one loop-kernel call over the tile. Arrays stay on the
// stack for the usual few operands (this runs once per region of up to 16 micro-tiles). The
// region's values are at c, rows ldc apart: in C, or in the GEMM's scratch when the epilogue
// consumes C; the outputs, the in-place one included, are always addressed in their buffers.
template <typename T>
void run_epilogue(void* context, T* c, std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                  std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  const auto& e = *static_cast<const EpilogueContext*>(context);
  constexpr std::size_t kOnStack = 16;
  std::array<const void*, kOnStack> input_array;
  std::array<void*, kOnStack> output_array;
  std::array<std::int64_t, kOnStack * codegen::kMaxLoopRank> stride_array;
  std::vector<const void*> input_heap;
  std::vector<void*> output_heap;
  std::vector<std::int64_t> stride_heap;
  const void** inputs = input_array.data();
  void** outputs = output_array.data();
  std::int64_t* input_strides = stride_array.data();
  if (e.leaves.size() + 1 > kOnStack) {
    input_heap.resize(e.leaves.size() + 1);
    inputs = input_heap.data();
    stride_heap.resize(e.prepared->input_strides.size());
    input_strides = stride_heap.data();
  }
  if (e.outputs.size() > kOnStack) {
    output_heap.resize(e.outputs.size());
    outputs = output_heap.data();
  }
  inputs[0] = c;
  std::copy(e.prepared->input_strides.begin(), e.prepared->input_strides.end(), input_strides);
  input_strides[0] = ldc;
  for (std::size_t k = 0; k < e.leaves.size(); ++k) inputs[k + 1] = region_start(e.leaves[k], batch, row0, col0);
  for (std::size_t j = 0; j < e.outputs.size(); ++j) outputs[j] = region_start(e.outputs[j], batch, row0, col0);
  codegen::LoopArgs args{};
  args.rank = 2;
  args.shape[0] = rows;
  args.shape[1] = cols;
  args.inputs = inputs;
  args.input_strides = input_strides;
  args.outputs = outputs;
  args.output_strides = e.prepared->output_strides.data();
  e.function(&args, 0, rows * cols);
}

template <typename T>
void run_product(const PreparedProduct& prepared, const ir::Value& a, const ir::Value& b,
                 const ir::Value& c, EpilogueContext& context) {
  context.function = prepared.kernel->as<codegen::LoopFunction>();
  context.prepared = &prepared;
  GemmEpilogue<T> hook;
  hook.function = &run_epilogue<T>;
  hook.context = &context;
  hook.begin_outer = &begin_outer;
  hook.consumes_c = prepared.consumes_c;
  hook.reads = &context.reads;
  hook.rows_continue_across_batch = prepared.rows_continue_across_batch;
  run_gemm<T>(a, b, c, hook);
}

// The product whose whole epilogue is the GEMM's store stage (match_store_stage).
template <typename T>
void run_store_stage(const PreparedProduct& prepared, const ir::Value& a, const ir::Value& b, const ir::Value& c,
                     const EpilogueContext& context) {
  GemmEpilogue<T> stage;
  if (prepared.stage_bias_leaf >= 0) {
    const auto leaf = static_cast<std::size_t>(prepared.stage_bias_leaf);
    stage.column_bias = reinterpret_cast<const T*>(context.leaves[leaf].base);
    stage.column_bias_strides = prepared.leaf_strides[leaf];
  }
  stage.activation = prepared.stage_relu ? kernels::Activation::relu : kernels::Activation::none;
  stage.rows_continue_across_batch = prepared.rows_continue_across_batch;
  run_gemm<T>(a, b, c, stage);
}

// Whether the GEMM's store stage can run the whole epilogue (PreparedProduct::store_stage):
// the step is the matmul, then `add(p, b)` (either order) with b a leaf of the product's dtype
// broadcast along the rows with contiguous columns, and/or `relu` of what came before, whose
// result is the one output, written over C. Sets the stage's fields when it can.
void match_store_stage(const ir::Step& step, PreparedProduct& prepared) {
  const ir::NodePtr& matmul = step.nodes.front();
  const ir::Shape& shape = matmul->shape();
  const std::size_t rank = shape.size();
  if (prepared.outputs.size() != 1 || prepared.in_place_output != 0 || step.nodes.size() > 3) return;
  std::size_t next = 1;
  int bias_leaf = -1;
  const ir::Node& first = *step.nodes[next];
  if (first.op() == ir::Op::add && first.dtype() == matmul->dtype()) {
    const ir::NodePtr& bias = first.input(0) == matmul ? first.input(1) : first.input(0);
    for (std::size_t k = 0; k < prepared.leaves.size(); ++k)
      if (prepared.leaves[k] == bias) bias_leaf = static_cast<int>(k);
    // An iota has no memory for the stage to read: the JIT'd epilogue computes it.
    if (bias_leaf < 0 || bias->dtype() != matmul->dtype() || bias->op() == ir::Op::iota) return;
    const ir::Strides& strides = prepared.leaf_strides[static_cast<std::size_t>(bias_leaf)];
    const bool along_rows = strides[rank - 2] == 0 || shape[rank - 2] == 1;
    const bool contiguous_columns = strides[rank - 1] == 1 || shape[rank - 1] == 1;
    if (!along_rows || !contiguous_columns) return;
    ++next;
  }
  bool relu = false;
  if (next < step.nodes.size()) {
    const ir::Node& last = *step.nodes[next];
    if (last.op() != ir::Op::relu || last.input(0) != step.nodes[next - 1]) return;
    relu = true;
    ++next;
  }
  if (next == 1 || next != step.nodes.size() || prepared.outputs.front() != step.nodes.back()) return;
  prepared.store_stage = true;
  prepared.stage_bias_leaf = bias_leaf;
  prepared.stage_relu = relu;
}

}  // namespace

std::shared_ptr<const PreparedProduct> prepare_product_step(const ir::Step& step, const ValueTable& values,
                                                           const StepDump& dump) {
  const ir::NodePtr& matmul = step.nodes.front();
  const ir::Shape& shape = matmul->shape();
  const std::size_t rank = shape.size();
  TJ_INTERNAL_CHECK(rank >= 2 && is_floating(matmul->dtype()))
      << "product step: " << dtype_name(matmul->dtype()) << " matmul " << ir::shape_str(shape);
  auto prepared = std::make_shared<PreparedProduct>();
  // Input 0 is the product's tile; every other leaf read from memory follows, in the order the
  // expression first reads it; constants stay in the expression.
  codegen::LoopKernelSpec spec;
  spec.form = codegen::LoopForm::tile;
  // The product's leaf only gives the kernel its dtype: a placeholder over no memory.
  const std::size_t product_bytes = static_cast<std::size_t>(matmul->numel()) * itemsize(matmul->dtype());
  auto placeholder = ir::Buffer::wrap(nullptr, product_bytes, {});
  spec.inputs.push_back(ir::make_input(std::move(placeholder), matmul->dtype(), ir::Layout::contiguous(shape)));
  spec.access.push_back(codegen::InnerAccess::contiguous);
  std::vector<ir::Strides> tile_strides{{shape[rank - 1], 1}};
  ExpressionRebuilder expression(step.nodes.begin() + 1, step.nodes.end(), [&](const ir::NodePtr& read) {
    ir::Value value = values.resolve(read);
    spec.inputs.push_back(values.kernel_leaf(read, value));
    const ir::Strides& strides = value.layout.strides;
    spec.access.push_back(classify_inner_stride(strides[rank - 1]));
    tile_strides.push_back({strides[rank - 2], strides[rank - 1]});
    prepared->leaves.push_back(read);
    prepared->leaf_strides.push_back(strides);
    return spec.inputs.back();
  });
  expression.alias(matmul.get(), spec.inputs.front());
  bool product_is_output = false;
  for (const auto& out : step.outputs) {
    if (out == matmul) {
      product_is_output = true;
      continue;
    }
    // C is overwritten in place by the first output of the product's dtype, unless the product
    // itself is an output.
    prepared->outputs.push_back(out);
    spec.expression.outputs.push_back(expression.rebuild(out));
  }
  for (std::size_t j = 0; j < prepared->outputs.size() && !product_is_output; ++j)
    if (prepared->outputs[j]->dtype() == matmul->dtype()) {
      prepared->in_place_output = static_cast<int>(j);
      break;
    }
  for (const ir::Strides& strides : prepared->leaf_strides)
    prepared->rows_continue_across_batch = prepared->rows_continue_across_batch && rows_continue_across_batch(shape, strides);

  match_store_stage(step, *prepared);
  if (prepared->store_stage) return prepared;

  // Every output is contiguous over the product's shape, like C: a tile's rows are a row of C apart,
  // and all outputs share C's element index from 64-byte aligned buffers, as streaming stores in a
  // tile kernel require. Input 0's row stride is the region's, given with each call.
  std::size_t output_bytes = 0;
  for (const auto& out : prepared->outputs) output_bytes += static_cast<std::size_t>(out->numel()) * itemsize(out->dtype());
  spec.streaming_stores = config().streams(output_bytes);
  prepared->consumes_c = spec.streaming_stores && !product_is_output;
  // The tile is in cache (just stored by the micro-kernels), and so are the leaves the GEMM
  // prefetches while it computes them. With k == 0 no micro-kernel runs: C is zeroed and the hook
  // gets whole regions of it, so the kernel prefetches everything itself.
  spec.fetched_by_caller.assign(spec.inputs.size(), false);
  if (matmul->input(0)->shape()[rank - 1] > 0) {
    spec.fetched_by_caller[0] = true;
    for (std::size_t k = 0;
         k < prepared->leaves.size() && prepared->prefetched_leaves.size() < kernels::kMaxEpilogueReads; ++k) {
      const bool rows_read = prepared->leaf_strides[k][rank - 2] != 0;
      if (!rows_read || spec.access[k + 1] != codegen::InnerAccess::contiguous ||
          values.computed_by_readers(*prepared->leaves[k]))
        continue;
      prepared->prefetched_leaves.push_back(k);
      spec.fetched_by_caller[k + 1] = true;
    }
  }
  prepared->input_strides.assign(tile_strides.size() * codegen::kMaxLoopRank, 0);
  for (std::size_t k = 0; k < tile_strides.size(); ++k) {
    prepared->input_strides[k * codegen::kMaxLoopRank] = tile_strides[k][0];
    prepared->input_strides[k * codegen::kMaxLoopRank + 1] = tile_strides[k][1];
  }
  prepared->output_strides.assign(prepared->outputs.size() * codegen::kMaxLoopRank, 0);
  for (std::size_t j = 0; j < prepared->outputs.size(); ++j) {
    prepared->output_strides[j * codegen::kMaxLoopRank] = shape[rank - 1];
    prepared->output_strides[j * codegen::kMaxLoopRank + 1] = 1;
  }

  codegen::DumpRequest request{dump.folder, dump.kernel_name};
  prepared->kernel = codegen::compile_loop_kernel(jit(), spec, dump.folder.empty() ? nullptr : &request);
  return prepared;
}

void PreparedProduct::launch(const ir::Step& step, ValueTable& values, const StepDump&) const {
  const PreparedProduct& prepared = *this;
  const ir::NodePtr& matmul = step.nodes.front();
  const ir::Shape& shape = matmul->shape();
  const auto numel = static_cast<std::size_t>(matmul->numel());
  ir::Value a = resolve_product_operand(values, matmul->input(0));
  ir::Value b = resolve_product_operand(values, matmul->input(1));
  // The GEMM writes every element of C (zeros when k == 0) and the epilogue every element of its
  // outputs: neither needs zeroed memory.
  // C may take the buffer donated to the output written over it, when the plan reads nothing of
  // that buffer: the GEMM stores C before the epilogue reads its leaves.
  const std::size_t c_bytes = numel * itemsize(matmul->dtype());
  ir::Value c{prepared.in_place_output >= 0
                  ? values.output_buffer(prepared.outputs[static_cast<std::size_t>(prepared.in_place_output)].get(),
                                         c_bytes, /*only_unread=*/true)
                  : ir::Buffer::allocate_uninitialized(c_bytes),
              matmul->dtype(), ir::Layout::contiguous(shape)};

  EpilogueContext context;
  if (shape.size() > 3) context.outer_shape.assign(shape.begin(), shape.end() - 3);
  for (std::size_t k = 0; k < prepared.leaves.size(); ++k) {
    ir::Value value = values.resolve(prepared.leaves[k]);
    char* base = const_cast<char*>(element_pointer(value));
    context.leaves.push_back(tile_operand(base, prepared.leaf_strides[k], itemsize(value.dtype)));
  }
  const ir::Strides contiguous = ir::Layout::contiguous(shape).strides;
  for (std::size_t j = 0; j < prepared.outputs.size(); ++j) {
    const ir::NodePtr& out = prepared.outputs[j];
    // The output over C goes to a buffer donated for it instead when the plan reads that buffer
    // (C did not take it): the epilogue then reads C and writes there. The store stage writes C.
    std::shared_ptr<ir::Buffer> donated;
    if (static_cast<int>(j) == prepared.in_place_output && !prepared.store_stage)
      donated = values.take_donation(out.get(), numel * itemsize(out->dtype()));
    ir::Value value = static_cast<int>(j) == prepared.in_place_output && !donated
                          ? ir::Value{c.buffer, c.dtype, c.layout}
                          : ir::Value{donated ? donated : values.output_buffer(out.get(), numel * itemsize(out->dtype())),
                                      out->dtype(), ir::Layout::contiguous(shape)};
    context.outputs.push_back(
        tile_operand(static_cast<char*>(value.buffer->data()), contiguous, itemsize(out->dtype())));
    values.put(out.get(), std::move(value));
  }
  if (step.outputs.front() == matmul) values.put(matmul.get(), c);
  if (numel == 0) return;
  if (prepared.store_stage) {
    if (matmul->dtype() == f32) run_store_stage<float>(prepared, a, b, c, context);
    else run_store_stage<double>(prepared, a, b, c, context);
    return;
  }
  if (matmul->dtype() == f32) run_product<float>(prepared, a, b, c, context);
  else run_product<double>(prepared, a, b, c, context);
}

}  // namespace tensorjit::detail
