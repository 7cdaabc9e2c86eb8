// W1 side by side: the JIT'd loop kernel and the hand-written C++ loop, single-threaded, median of
// interleaved runs in one process, results checked equal bit for bit.
//
//   build-lower/bench/elementwise/w1_peers [--vector-bits 128|256|512] [--runs 11] [--elements N]
//                                          [--dump FOLDER]   (writes w1.ll, w1.opt.ll, w1.s)
//                                          [--row R]  (the kernel walks the data as [n / R, R]:
//                                                      the cost of short rows; default one row)
// Also times the same kernel with streaming (non-temporal) stores (LoopKernelSpec::streaming_stores,
// into a 64-byte aligned output), as the runtime compiles it for outputs of 16 MiB and more.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/node.hpp>

#include "w1_loop.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using tensorjit::DType;

namespace {

struct Options {
  std::optional<int> vector_bits;
  int runs = 11;
  std::int64_t elements = std::int64_t{16} << 20;
  std::string dump_folder;
  std::int64_t row = 0;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--vector-bits") options.vector_bits = std::stoi(argv[i + 1]);
    else if (flag == "--runs") options.runs = std::stoi(argv[i + 1]);
    else if (flag == "--elements") options.elements = std::stoll(argv[i + 1]);
    else if (flag == "--dump") options.dump_folder = argv[i + 1];
    else if (flag == "--row") options.row = std::stoll(argv[i + 1]);
  }
  return options;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

template <typename Function> double milliseconds(Function&& function) {
  const auto start = std::chrono::steady_clock::now();
  function();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// An input node over caller-owned memory (no copy).
ir::NodePtr wrap(std::vector<float>& values) {
  auto buffer = ir::Buffer::wrap(values.data(), values.size() * sizeof(float), {});
  return ir::make_input(std::move(buffer), DType::f32,
                        ir::Layout::contiguous({static_cast<std::int64_t>(values.size())}));
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  // TENSORJIT_LOG=info prints the compile's phases (build, optimize, codegen, link).
  if (const char* level = std::getenv("TENSORJIT_LOG")) codegen::set_log_level(level);
  const std::int64_t n = options.elements;
  std::vector<float> a(n), b(n), c(n), jit_result(n), loop_result(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = uniform(rng);
    b[i] = uniform(rng);
    c[i] = uniform(rng);
  }

  // y = maximum(a*b + c, 0) * 0.5
  const ir::Shape domain{n};
  auto sum = ir::make_binary(ir::Op::add, ir::make_binary(ir::Op::mul, wrap(a), wrap(b)), wrap(c));
  auto zero = ir::make_constant(DType::f32, domain, ir::Scalar::of(DType::f32, 0.0));
  auto half = ir::make_constant(DType::f32, domain, ir::Scalar::of(DType::f32, 0.5));
  auto y = ir::make_binary(ir::Op::mul, ir::make_binary(ir::Op::maximum, sum, zero), half);
  codegen::LoopKernelSpec spec;
  spec.expression.outputs = {y};
  for (const auto& node : ir::topological_order(spec.expression)) {
    if (node->op() != ir::Op::input) continue;
    spec.inputs.push_back(node);
    spec.access.push_back(codegen::InnerAccess::contiguous);
  }

  codegen::JitOptions jit_options;
  jit_options.vector_bits = options.vector_bits;
  codegen::Jit jit(jit_options);
  codegen::KernelHandle kernel;
  double compile_ms = 0;
  codegen::DumpRequest dump{options.dump_folder, "w1"};
  compile_ms = milliseconds([&] {
    kernel = codegen::compile_loop_kernel(jit, spec, options.dump_folder.empty() ? nullptr : &dump);
  });
  codegen::LoopKernelSpec streaming_spec = spec;
  streaming_spec.streaming_stores = true;
  codegen::KernelHandle streaming_kernel = codegen::compile_loop_kernel(jit, streaming_spec);
  auto streaming_output = ir::Buffer::allocate(static_cast<std::size_t>(n) * sizeof(float));

  codegen::LoopArgs args{};
  const std::int64_t row = options.row > 0 && n % options.row == 0 ? options.row : n;
  args.rank = row == n ? 1 : 2;
  args.shape[0] = row == n ? n : n / row;
  args.shape[1] = row;
  const void* inputs[3];
  for (int k = 0; k < 3; ++k) {
    inputs[k] = spec.inputs[k]->attr<ir::InputAttr>().buffer->data();
  }
  std::vector<std::int64_t> strides(3 * codegen::kMaxLoopRank, 0);
  for (int k = 0; k < 3; ++k) {
    strides[k * codegen::kMaxLoopRank] = row == n ? 1 : row;
    strides[k * codegen::kMaxLoopRank + 1] = 1;
  }
  void* outputs[1] = {jit_result.data()};
  args.inputs = inputs;
  args.input_strides = strides.data();
  args.outputs = outputs;
  auto* function = kernel->as<codegen::LoopFunction>();
  codegen::LoopArgs streaming_args = args;
  void* streaming_outputs[1] = {streaming_output->data()};
  streaming_args.outputs = streaming_outputs;
  auto* streaming_function = streaming_kernel->as<codegen::LoopFunction>();

  std::vector<double> jit_times, streaming_times, loop_times;
  for (int run = 0; run < options.runs; ++run) {
    jit_times.push_back(milliseconds([&] { function(&args, 0, n); }));
    streaming_times.push_back(milliseconds([&] { streaming_function(&streaming_args, 0, n); }));
    loop_times.push_back(milliseconds(
        [&] { tensorjit::bench::w1_loop(a.data(), b.data(), c.data(), loop_result.data(), n); }));
  }
  const bool same = std::memcmp(jit_result.data(), loop_result.data(), n * sizeof(float)) == 0 &&
                    std::memcmp(streaming_output->data(), loop_result.data(), n * sizeof(float)) == 0;
  const double jit_ms = median(jit_times), streaming_ms = median(streaming_times), loop_ms = median(loop_times);
  const double gigabytes = 4.0 * static_cast<double>(n) * sizeof(float) / 1e9;
  std::printf(
      "W1 y = max(a*b + c, 0) * 0.5, f32, %lld elements in rows of %lld, 1 thread, median of %d "
      "runs\n",
      static_cast<long long>(n), static_cast<long long>(row), options.runs);
  std::printf("  target: %s, kernel compiled in %.1f ms\n", jit.target().summary().c_str(),
              compile_ms);
  std::printf("  jit loop kernel : %8.2f ms  %6.1f GB/s\n", jit_ms, gigabytes / (jit_ms / 1e3));
  std::printf("  jit loop kernel, streaming stores : %8.2f ms  %6.1f GB/s\n", streaming_ms,
              gigabytes / (streaming_ms / 1e3));
  std::printf(
      "  g++ -O3 -march=native -fno-trapping-math -ffp-contract=off loop: %8.2f ms  %6.1f GB/s\n",
      loop_ms, gigabytes / (loop_ms / 1e3));
  std::printf("  ratio jit / g++: %.2f, streaming jit / g++: %.2f; results %s\n", jit_ms / loop_ms,
              streaming_ms / loop_ms, same ? "bit-identical" : "DIFFER");
  return same ? 0 : 1;
}
