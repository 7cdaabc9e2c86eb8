// The table of vecmath_peers with tensorjit's JIT'd loop kernels alone: called through the codegen
// API on buffers allocated once, as the libm and libmvec loops are, so that the per-eval costs of
// the runtime (a fresh 64 MiB output) do not hide the vector math. Same cases, inputs, peers
// (glibc's libm, libmvec AVX2 and AVX-512, NumPy) and medians of interleaved runs, one thread.
// Six rows have no peer and are here for the activations' own cost: sigmoid, gelu over [-4.2, 3.7]
// (gelu_core: its table alone, where a transformer's FFN puts 99% of its inputs), and gelu_tanh
// (the epilogue of bench/epilogues) over [-9, 9], [-2.5, 2.5] (gelu_tanh_core: its table alone) and
// two ranges with a few inputs below the table (gelu_tanh_1pct, gelu_tanh_5pct). `--cases` keeps
// the named rows only.
//
//   taskset -c 0 build/bench/vecmath/vecmath_kernels [--runs 9] [--elements N] [--no-numpy]
//       [--cases exp,w2,...] [--vector-bits 128|256|512]
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/node.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "peer_table.hpp"

namespace bench = tensorjit::bench;
namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;

namespace {

// The case named `name` over one-element stand-in inputs (sizes are run-time arguments; `x2` is
// pow's exponent).
ir::NodePtr expression(const std::string& name, const ir::NodePtr& x, const ir::NodePtr& x2) {
  auto unary = [&](ir::Op op, const ir::NodePtr& operand) { return ir::Node::make(op, {operand}); };
  if (name == "x+1") {
    return ir::Node::make(ir::Op::add, {x, ir::make_constant(tensorjit::DType::f32, x->shape(), ir::make_scalar(1.0f))});
  }
  if (name == "exp") return unary(ir::Op::exp, x);
  if (name == "log") return unary(ir::Op::log, x);
  if (name == "tanh") return unary(ir::Op::tanh, x);
  if (name == "erf") return unary(ir::Op::erf, x);
  if (name == "sin") return unary(ir::Op::sin, x);
  if (name == "cos") return unary(ir::Op::cos, x);
  if (name == "gelu" || name == "gelu_core") return unary(ir::Op::gelu, x);
  if (name == "pow") return ir::Node::make(ir::Op::pow, {x, x2});
  if (name == "sigmoid") return unary(ir::Op::sigmoid, x);
  if (name.rfind("gelu_tanh", 0) == 0) return unary(ir::Op::gelu_tanh, x);
  auto product = ir::Node::make(ir::Op::mul, {unary(ir::Op::tanh, x), unary(ir::Op::sigmoid, x)});
  auto gaussian = unary(ir::Op::exp, unary(ir::Op::neg, ir::Node::make(ir::Op::mul, {x, x})));
  return ir::Node::make(ir::Op::add, {product, gaussian});
}

// The peer cases, then the kernel-only ones. gelu_tanh's reference is its ops.def formula in
// double with the f32 constants of the op's definition.
std::vector<bench::PeerCase> kernel_cases() {
  std::vector<bench::PeerCase> cases = bench::peer_cases();
  cases.push_back({"sigmoid", -9, 9, false, [](double x, double) { return 1 / (1 + std::exp(-x)); }});
  // f32 gelu's table path alone (outside [-4.25, 3.75) it takes the erfc form).
  cases.push_back({"gelu_core", -4.2, 3.7, false, [](double x, double) { return x / 2 * std::erfc(-x * ir::kInverseSqrt2<float>); }});
  auto gelu_tanh = [](double x, double) {
    const double c1 = ir::kSqrt2OverPi<float>, c2 = ir::kGeluTanhCubic<float>;
    return x / (1 + std::exp(-2 * c1 * (x + c2 * x * x * x)));
  };
  cases.push_back({"gelu_tanh", -9, 9, false, gelu_tanh});
  // Where activations mostly lie: f32 gelu_tanh's table path alone (below -2.875 it takes exp);
  // then 1.3% and 5.1% of the inputs below the table, spread over the registers.
  cases.push_back({"gelu_tanh_core", -2.5, 2.5, false, gelu_tanh});
  cases.push_back({"gelu_tanh_1pct", -2.95, 2.95, false, gelu_tanh});
  cases.push_back({"gelu_tanh_5pct", -3.2, 3.2, false, gelu_tanh});
  return cases;
}

bool wanted(const std::string& cases, const std::string& name) {
  if (cases.empty()) return true;
  std::istringstream list(cases);
  for (std::string item; std::getline(list, item, ',');)
    if (item == name) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 9;
  std::int64_t n = std::int64_t{16} << 20;
  bool numpy_wanted = true;
  std::string cases;
  codegen::JitOptions options;  // the native width unless --vector-bits
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-numpy") numpy_wanted = false;
    else if (flag == "--runs" && i + 1 < argc) runs = std::stoi(argv[++i]);
    else if (flag == "--elements" && i + 1 < argc) n = std::stoll(argv[++i]) / 16 * 16;
    else if (flag == "--cases" && i + 1 < argc) cases = argv[++i];
    else if (flag == "--vector-bits" && i + 1 < argc) options.vector_bits = codegen::parse_vector_bits(argv[++i], "--vector-bits");
    else std::fprintf(stderr, "ignored argument %s\n", argv[i]);
  }
  const auto numpy = numpy_wanted ? bench::run_numpy(n, runs) : std::map<std::string, double>{};
  codegen::Jit jit(options);
  bench::print_table_header(n, runs, "tensorjit kernel");
  for (const bench::PeerCase& c : kernel_cases()) {
    if (!wanted(cases, c.name)) continue;
    std::vector<float> x = bench::peer_inputs(c, n);
    std::vector<float> x2 = bench::peer_second_inputs(c, n);
    std::vector<float> y(x.size()), kernel_y(x.size());
    codegen::LoopKernelSpec spec;
    auto make_input = [] {
      return ir::make_input(ir::Buffer::allocate(sizeof(float)), tensorjit::DType::f32, ir::Layout::contiguous({1}));
    };
    auto input = make_input();
    auto input2 = c.binary ? make_input() : nullptr;
    spec.inputs = {input};
    spec.access = {codegen::InnerAccess::contiguous};
    if (c.binary) {
      spec.inputs.push_back(input2);
      spec.access.push_back(codegen::InnerAccess::contiguous);
    }
    spec.expression.outputs = {expression(c.name, input, input2)};
    codegen::KernelHandle kernel = codegen::compile_loop_kernel(jit, spec);
    codegen::LoopArgs args{};
    args.rank = 1;
    args.shape[0] = n;
    const void* inputs[2] = {x.data(), x2.data()};
    std::int64_t strides[2 * codegen::kMaxLoopRank] = {1};
    strides[codegen::kMaxLoopRank] = 1;
    void* outputs[1] = {kernel_y.data()};
    args.inputs = inputs;
    args.input_strides = strides;
    args.outputs = outputs;
    std::vector<bench::Peer> peers;
    peers.push_back({"tensorjit", [&] {
                       kernel->as<codegen::LoopFunction>()(&args, 0, n);
                       return static_cast<const float*>(kernel_y.data());
                     }, {}});
    for (auto& peer : bench::library_peers(c.name, x, x2, y)) peers.push_back(std::move(peer));
    bench::measure_and_print_row(c, x, x2, peers, runs, numpy);
  }
  return 0;
}
