// A single step: one node materialised by itself. Floating matmuls run on the packed GEMM of
// kernels/; everything else (reductions, integer matmuls, iota, a constant output) runs on the
// reference interpreter until its issue gives it a kernel.
#include <algorithm>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/kernels/gemm.hpp>

#include "runtime/src/config.hpp"
#include "runtime/src/plan_runner.hpp"
#include "runtime/src/thread_pool.hpp"

namespace tensorjit::detail {
namespace {

kernels::ParallelFor pool_parallel_for() {
  kernels::ParallelFor pf;
  pf.threads = pool_threads();
  pf.run = [](void*, std::int64_t n, void (*task)(void*, std::int64_t), void* context) {
    parallel_for(n, [&](std::int64_t i) { task(context, i); });
  };
  return pf;
}

template <typename T> void run_gemm(const ir::Value& a, const ir::Value& b, const ir::Value& c) {
  const int r = static_cast<int>(c.layout.shape.size());
  const auto& cs = c.layout.shape;
  kernels::GemmArgs<T> args;
  args.m = cs[r - 2];
  args.n = cs[r - 1];
  args.k = a.layout.shape[r - 1];
  // The last batch axis is the GEMM's batch; any earlier batch axes are walked here.
  args.batch = r > 2 ? cs[r - 3] : 1;
  std::int64_t outer = 1;
  for (int d = 0; d < r - 3; ++d) outer *= cs[d];
  kernels::GemmOptions options;
  options.vector_bits = config().vector_bits.value_or(0);
  options.parallel_for = pool_parallel_for();
  const T* a_base = a.data<T>();
  const T* b_base = b.data<T>();
  T* c_base = c.data<T>();
  for (std::int64_t o = 0; o < outer; ++o) {
    std::int64_t a_offset = 0, b_offset = 0, c_offset = 0, rest = o;
    for (int d = r - 4; d >= 0; --d) {
      std::int64_t i = rest % cs[d];
      rest /= cs[d];
      a_offset += i * a.layout.strides[d];
      b_offset += i * b.layout.strides[d];
      c_offset += i * c.layout.strides[d];
    }
    args.a = {a_base + a_offset, a.layout.strides[r - 2], a.layout.strides[r - 1], r > 2 ? a.layout.strides[r - 3] : 0};
    args.b = {b_base + b_offset, b.layout.strides[r - 2], b.layout.strides[r - 1], r > 2 ? b.layout.strides[r - 3] : 0};
    args.c = {c_base + c_offset, c.layout.strides[r - 2], r > 2 ? c.layout.strides[r - 3] : 0};
    kernels::gemm(args, options);
  }
}

bool runs_on_gemm(const ir::Node& node) {
  return node.op() == ir::Op::matmul && is_floating(node.dtype());
}

}  // namespace

void run_single_step(const ir::Step& step, ValueTable& values) {
  const ir::NodePtr& node = step.nodes.front();
  if (runs_on_gemm(*node)) {
    ir::Value a = values.resolve(node->input(0));
    ir::Value b = values.resolve(node->input(1));
    auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(node->numel()) * itemsize(node->dtype()));
    ir::Value c{std::move(buffer), node->dtype(), ir::Layout::contiguous(node->shape())};
    if (node->numel() > 0) {
      if (node->dtype() == f32) run_gemm<float>(a, b, c);
      else run_gemm<double>(a, b, c);
    }
    values.put(node.get(), std::move(c));
    return;
  }
  if (node->op() == ir::Op::constant) {  // an output: filled contiguously, as users expect
    const auto& c = node->attr<ir::ConstantAttr>();
    auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(node->numel()) * itemsize(c.dtype));
    visit_dtype(c.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T value = is_floating(c.dtype) ? static_cast<T>(c.value.f) : static_cast<T>(c.value.i);
      std::fill_n(static_cast<T*>(buffer->data()), node->numel(), value);
    });
    values.put(node.get(), ir::Value{std::move(buffer), c.dtype, ir::Layout::contiguous(c.shape)});
    return;
  }
  std::vector<ir::NodePtr> inputs;
  for (const auto& in : node->inputs()) {
    ir::Value v = values.resolve(in);
    inputs.push_back(ir::make_input(v.buffer, v.dtype, v.layout));
  }
  ir::Graph one{{node->with_inputs(std::move(inputs))}};
  values.put(node.get(), ir::interpret(one).front());
}

}  // namespace tensorjit::detail
