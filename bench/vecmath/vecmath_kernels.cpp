// The JIT'd loop kernels of vecmath_peers alone, called through the codegen API on buffers
// allocated once (as the libm loops are), so that the per-eval costs of the runtime (a fresh
// output buffer: page faults dominate at 16 Mi elements on this host) do not hide the vector math.
// Prints `name ns_per_element`, median of interleaved runs, one thread.
//
//   taskset -c 0 build/bench/vecmath/vecmath_kernels [--runs 9] [--elements N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;

namespace {

struct Kernel {
  std::string name;
  codegen::KernelHandle handle;
  std::vector<double> seconds;
};

// The kernel named `name` over a one-element stand-in input (sizes are run-time arguments); W2 is
// tanh(x) * sigmoid(x) + exp(-(x * x)).
ir::NodePtr expression(const std::string& name, const ir::NodePtr& x) {
  if (name == "x+1") {
    return ir::Node::make(ir::Op::add, {x, ir::make_constant(tensorjit::DType::f32, x->shape(), ir::make_scalar(1.0f))});
  }
  if (name == "exp") return ir::Node::make(ir::Op::exp, {x});
  if (name == "log") return ir::Node::make(ir::Op::log, {x});
  if (name == "tanh") return ir::Node::make(ir::Op::tanh, {x});
  if (name == "erf") return ir::Node::make(ir::Op::erf, {x});
  auto product = ir::Node::make(ir::Op::mul, {ir::Node::make(ir::Op::tanh, {x}), ir::Node::make(ir::Op::sigmoid, {x})});
  auto gaussian = ir::Node::make(ir::Op::exp, {ir::Node::make(ir::Op::neg, {ir::Node::make(ir::Op::mul, {x, x})})});
  return ir::Node::make(ir::Op::add, {product, gaussian});
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 9;
  std::int64_t n = std::int64_t{16} << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--runs") runs = std::stoi(argv[i + 1]);
    if (std::string(argv[i]) == "--elements") n = std::stoll(argv[i + 1]);
  }
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size());
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(0.001f, 5.0f);
  for (auto& value : x) value = uniform(rng);
  codegen::Jit jit;
  std::vector<Kernel> kernels;
  for (const char* name : {"x+1", "exp", "log", "tanh", "erf", "w2"}) {
    codegen::LoopKernelSpec spec;
    auto input = ir::make_input(ir::Buffer::allocate(sizeof(float)), tensorjit::DType::f32, ir::Layout::contiguous({1}));
    spec.inputs = {input};
    spec.access = {codegen::InnerAccess::contiguous};
    spec.expression.outputs = {expression(name, input)};
    kernels.push_back({name, codegen::compile_loop_kernel(jit, spec), {}});
  }
  codegen::LoopArgs args{};
  args.rank = 1;
  args.shape[0] = n;
  const void* inputs[1] = {x.data()};
  std::int64_t strides[codegen::kMaxLoopRank] = {1};
  void* outputs[1] = {y.data()};
  args.inputs = inputs;
  args.input_strides = strides;
  args.outputs = outputs;
  for (int run = 0; run <= runs; ++run) {
    for (auto& kernel : kernels) {
      const auto start = std::chrono::steady_clock::now();
      kernel.handle->as<codegen::LoopFunction>()(&args, 0, n);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (run > 0) kernel.seconds.push_back(seconds);  // run 0 warms the pages and caches
    }
  }
  for (auto& kernel : kernels) {
    std::sort(kernel.seconds.begin(), kernel.seconds.end());
    std::printf("%s %.3f\n", kernel.name.c_str(), kernel.seconds[kernel.seconds.size() / 2] / static_cast<double>(n) * 1e9);
  }
  return 0;
}
