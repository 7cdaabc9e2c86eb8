#include "runtime/src/gemm_call.hpp"

#include <type_traits>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/f32_form.hpp>

#include "runtime/src/config.hpp"
#include "runtime/src/packed_weights.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
bool rows_continue_across_batch(const ir::Shape& shape, const ir::Strides& strides) {
  const std::size_t rank = shape.size();
  return rank < 3 || strides[rank - 3] == shape[rank - 2] * strides[rank - 2];
}

ir::Value resolve_product_operand(const ValueTable& values, const ir::NodePtr& operand) {
  if (ir::widens_storage_float(*operand) && !values.has(operand.get())) return values.resolve(operand->input(0));
  return values.resolve(operand);
}

namespace {

// `value` as an operand of a T product: its elements, or its 16-bit elements for the GEMM to convert.
template <typename T>
kernels::MatrixView<T> matrix_view(const ir::Value& value, std::int64_t offset, std::int64_t row_stride,
                                   std::int64_t col_stride, std::int64_t batch_stride) {
  kernels::MatrixView<T> view{nullptr, row_stride, col_stride, batch_stride};
  if (value.dtype == f16 || value.dtype == bf16) {
    TJ_INTERNAL_CHECK((std::is_same_v<T, float>)) << "gemm: a " << dtype_name(value.dtype) << " operand of a "
                                                  << dtype_name(dtype_of<T>()) << " product";
    view.storage = value.dtype == f16 ? kernels::Storage::f16 : kernels::Storage::bf16;
    view.narrow = value.data<std::uint16_t>() + offset;
  } else {
    view.data = value.data<T>() + offset;
  }
  return view;
}

}  // namespace

template <typename T>
void run_gemm(const ir::Value& a, const ir::Value& b, const ir::Value& c, const GemmEpilogue<T>& epilogue) {
  const int r = static_cast<int>(c.layout.shape.size());
  const auto& cs = c.layout.shape;
  kernels::GemmArgs<T> args;
  args.m = cs[r - 2];
  args.n = cs[r - 1];
  args.k = a.layout.shape[r - 1];
  // The last batch axis is the GEMM's batch; any earlier batch axes are walked here.
  args.batch = r > 2 ? cs[r - 3] : 1;
  const bool fold_batch = r > 2 && b.layout.strides[r - 3] == 0 && epilogue.rows_continue_across_batch &&
                          rows_continue_across_batch(cs, a.layout.strides) &&
                          rows_continue_across_batch(cs, c.layout.strides);
  if (fold_batch) {
    args.m *= args.batch;
    args.batch = 1;
  }
  const auto batch_stride = [&](const ir::Layout& layout) { return r > 2 && !fold_batch ? layout.strides[r - 3] : 0; };
  args.epilogue = epilogue.function;
  if (epilogue.column_bias != nullptr && r > 2 && !fold_batch)
    args.store_stage.column_bias_batch_stride = epilogue.column_bias_strides[r - 3];
  args.store_stage.activation = epilogue.activation;
  args.epilogue_context = epilogue.context;
  args.epilogue_consumes_c = epilogue.consumes_c;
  std::int64_t outer = 1;
  for (int d = 0; d < r - 3; ++d) outer *= cs[d];
  kernels::GemmOptions options;
  options.vector_bits = config().vector_bits.value_or(0);
  options.parallel_for = pool_parallel_for();
  T* c_base = c.data<T>();
  for (std::int64_t o = 0; o < outer; ++o) {
    std::int64_t a_offset = 0, b_offset = 0, c_offset = 0, bias_offset = 0, rest = o;
    for (int d = r - 4; d >= 0; --d) {
      std::int64_t i = rest % cs[d];
      rest /= cs[d];
      a_offset += i * a.layout.strides[d];
      b_offset += i * b.layout.strides[d];
      c_offset += i * c.layout.strides[d];
      if (epilogue.column_bias != nullptr) bias_offset += i * epilogue.column_bias_strides[d];
    }
    if (epilogue.column_bias != nullptr)
      args.store_stage.column_bias = epilogue.column_bias + bias_offset;
    args.a = matrix_view<T>(a, a_offset, a.layout.strides[r - 2], a.layout.strides[r - 1], batch_stride(a.layout));
    args.b = matrix_view<T>(b, b_offset, b.layout.strides[r - 2], b.layout.strides[r - 1], batch_stride(b.layout));
    // A constant B (a weight loaded from a file) is packed once and kept (packed_weights.hpp).
    args.packed_b = {};
    std::shared_ptr<const void> packed_panels;
    if (args.batch == 1 || args.b.batch_stride == 0)
      packed_panels = packed_weight<T>(b.buffer, args.b, args.k, args.n, options, args.packed_b);
    args.c = {c_base + c_offset, c.layout.strides[r - 2], batch_stride(c.layout)};
    if (epilogue.begin_outer) epilogue.begin_outer(epilogue.context, o);
    if (epilogue.reads != nullptr) {
      args.epilogue_reads = epilogue.reads->data();
      args.epilogue_read_count = static_cast<int>(epilogue.reads->size());
    }
    kernels::gemm(args, options);
  }
}

template void run_gemm<float>(const ir::Value&, const ir::Value&, const ir::Value&, const GemmEpilogue<float>&);
template void run_gemm<double>(const ir::Value&, const ir::Value&, const ir::Value&, const GemmEpilogue<double>&);

}  // namespace tensorjit::detail
