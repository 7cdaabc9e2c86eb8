// A sort step runs kernels::sort_row (kernels/include/tensorjit/kernels/sort.hpp) on each row along
// the step's axis, reading the operand through its layout and writing each output contiguously;
// rows are split over the pool, each task with a workspace of its own. A row's result does not
// depend on which task sorts it, so the bits never depend on the thread count.
#include "runtime/src/sort_step.hpp"

#include <algorithm>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/kernels/sort.hpp>

#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

kernels::SortElement sort_element(DType dtype) {
  switch (dtype) {
    case DType::f32: return kernels::SortElement::f32;
    case DType::f64: return kernels::SortElement::f64;
    case DType::i32: return kernels::SortElement::i32;
    case DType::i64: return kernels::SortElement::i64;
    case DType::boolean: return kernels::SortElement::boolean;
    case DType::f16:
    case DType::bf16: break;
  }
  // canonicalize rewrites a sort of f16/bf16 to the sort of its f32 form (ir/f32_form.hpp), so a
  // sort step never reads a storage type.
  TJ_INTERNAL_CHECK(false) << "sort step: no sort kernel for " << dtype_name(dtype) << "; canonicalize gives sort its f32 form";
  return kernels::SortElement::boolean;
}

struct PreparedSort final : PreparedStep {
  void launch(const ir::Step& step, ValueTable& values, const StepDump&) const override {
    const ir::NodePtr& first = step.nodes.front();
    const auto& attr = first->attr<ir::SortAttr>();
    const auto axis = static_cast<std::size_t>(attr.axis);
    const ir::Value input = values.resolve(first->input(0));
    const ir::Shape& shape = input.layout.shape;
    const ir::Strides result_strides = ir::contiguous_strides(first->shape());
    void* sorted_values = nullptr;
    std::int64_t* positions = nullptr;
    for (const auto& node : step.nodes) {
      auto buffer =
          ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(node->numel()) * itemsize(node->dtype()));
      if (node->op() == ir::Op::argsort) positions = static_cast<std::int64_t*>(buffer->data());
      else sorted_values = buffer->data();
      values.put(node.get(), ir::Value{std::move(buffer), node->dtype(), ir::Layout::contiguous(node->shape())});
    }
    std::int64_t rows = 1;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (d != axis) rows *= shape[d];
    if (rows == 0 || attr.count == 0) return;
    kernels::SortRowArgs row_args;
    row_args.element = sort_element(input.dtype);
    row_args.descending = attr.descending;
    row_args.length = shape[axis];
    row_args.count = attr.count;
    row_args.input_stride = input.layout.strides[axis];
    row_args.values_stride = result_strides[axis];
    row_args.positions_stride = result_strides[axis];
    const char* input_base = element_pointer(input);
    const std::size_t input_size = itemsize(input.dtype);
    const std::size_t value_size = itemsize(first->input(0)->dtype());
    // Row r's element offsets in the input and in the results, from its index over the other axes.
    auto run_rows = [&](std::int64_t begin, std::int64_t end) {
      kernels::SortWorkspace workspace([](std::size_t bytes) {
        std::shared_ptr<ir::Buffer> buffer = ir::Buffer::allocate_uninitialized(bytes);
        return std::shared_ptr<void>(buffer, buffer->data());
      });
      for (std::int64_t r = begin; r < end; ++r) {
        std::int64_t rest = r, input_offset = 0, result_offset = 0;
        for (std::size_t d = shape.size(); d-- > 0;) {
          if (d == axis) continue;
          const std::int64_t i = rest % shape[d];
          rest /= shape[d];
          input_offset += i * input.layout.strides[d];
          result_offset += i * result_strides[d];
        }
        kernels::SortRowArgs args = row_args;
        args.input = input_base + input_offset * static_cast<std::int64_t>(input_size);
        if (sorted_values)
          args.values = static_cast<char*>(sorted_values) + result_offset * static_cast<std::int64_t>(value_size);
        if (positions) args.positions = positions + result_offset;
        kernels::sort_row(args, workspace);
      }
    };
    const std::int64_t work = rows * row_args.length;
    const std::int64_t tasks = std::min<std::int64_t>({pool_threads(), rows, work / kMinElementsPerTask});
    // One task (fewer rows than threads, or too little work to split them): each row's sort may
    // split itself over the pool, as a long one does.
    if (tasks <= 1) {
      row_args.parallel_for = pool_parallel_for();
      return run_rows(0, rows);
    }
    parallel_for(tasks, [&](std::int64_t t) { run_rows(rows * t / tasks, rows * (t + 1) / tasks); });
  }
};

}  // namespace

std::shared_ptr<const PreparedStep> prepare_sort_step(const ir::Step& step, const ValueTable&, const StepDump&) {
  const auto& nodes = step.nodes;
  for (const auto& node : nodes)
    TJ_INTERNAL_CHECK(ir::is_order(node->op()) && node->input(0) == nodes.front()->input(0) &&
                      ir::attrs_equal(node->attrs(), nodes.front()->attrs()))
        << "sort step: " << ir::op_name(node->op()) << " is not an ordering of the step's one operand";
  TJ_INTERNAL_CHECK(nodes.size() <= 2 && (nodes.size() == 1 || nodes[0]->op() != nodes[1]->op()))
      << "sort step: " << nodes.size() << " nodes; a step holds one sort and one argsort at most";
  return std::make_shared<PreparedSort>();
}

}  // namespace tensorjit::detail
