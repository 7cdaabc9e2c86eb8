// Loop kernels with streaming (non-temporal) stores (LoopKernelSpec::streaming_stores): the same
// bits as the ordinary kernel and as the interpreter for every split of the range, every width,
// mixed output dtypes (a bool output narrower than a vector register, an f32 output in an f64
// kernel), rows that start anywhere; the stores really are non-temporal. Tile kernels (a product
// epilogue writing a large output) too: outputs of two dtypes at one element index, rows that
// start at any alignment, short and long rows, with and without vector math.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include <tensorjit/error.hpp>

#include "codegen_test_support.hpp"
#include "loop_kernel_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::make_spec;
using codegen::testing::run_loop_kernel;
using tensorjit::DType;

namespace {

ir::NodePtr random_input(DType dtype, const ir::Shape& shape, const ir::Strides& strides, std::int64_t elements,
                         std::uint32_t seed) {
  auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(elements) * itemsize(dtype));
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-3.0, 3.0);
  for (std::int64_t i = 0; i < elements; ++i) {
    if (dtype == DType::f64) static_cast<double*>(buffer->data())[i] = uniform(generator);
    else static_cast<float*>(buffer->data())[i] = static_cast<float>(uniform(generator));
  }
  return ir::make_input(std::move(buffer), dtype, ir::Layout{shape, strides, 0});
}

// max(a * b + c, 0) * 0.5 in f32 (W1) over `shape`, c broadcast along the rows.
ir::Graph w1_graph(const ir::Shape& shape) {
  const std::int64_t columns = shape.back(), rows = shape.size() == 2 ? shape[0] : 1;
  const ir::Strides contiguous = shape.size() == 2 ? ir::Strides{columns, 1} : ir::Strides{1};
  const ir::Strides row_broadcast = shape.size() == 2 ? ir::Strides{0, 1} : ir::Strides{1};
  auto a = random_input(DType::f32, shape, contiguous, rows * columns, 1);
  auto b = random_input(DType::f32, shape, contiguous, rows * columns, 2);
  auto c = random_input(DType::f32, shape, row_broadcast, columns, 3);
  auto half = ir::make_constant(DType::f32, shape, ir::Scalar::of(DType::f32, 0.5));
  auto zero = ir::make_constant(DType::f32, shape, ir::Scalar::of(DType::f32, 0.0));
  auto y = ir::make_binary(ir::Op::mul,
                           ir::make_binary(ir::Op::maximum, ir::make_binary(ir::Op::add, ir::make_binary(ir::Op::mul, a, b), c), zero),
                           half);
  return ir::Graph{{y}};
}

// Three outputs of one f64 kernel: x * y in f64, x < y (bool, one byte per lane) and x + y cast
// to f32 (half the width of a vector of the kernel).
ir::Graph mixed_graph(std::int64_t count) {
  auto x = random_input(DType::f64, {count}, {1}, count, 4);
  auto y = random_input(DType::f64, {count}, {1}, count, 5);
  return ir::Graph{{ir::make_binary(ir::Op::mul, x, y), ir::make_binary(ir::Op::lt, x, y),
                    ir::make_cast(ir::make_binary(ir::Op::add, x, y), DType::f32)}};
}

void check_streaming(codegen::Jit& jit, const ir::Graph& graph, std::mt19937& rng) {
  codegen::LoopKernelSpec ordinary = make_spec(graph);
  codegen::LoopKernelSpec streaming = ordinary;
  streaming.streaming_stores = true;
  CHECK(codegen::loop_kernel_key(streaming) != codegen::loop_kernel_key(ordinary));
  const ir::Shape& domain = graph.outputs.front()->shape();
  std::int64_t count = 1;
  for (auto extent : domain) count *= extent;
  std::vector<std::int64_t> cuts{0, count};
  for (int i = 0; i < 4; ++i) cuts.push_back(std::uniform_int_distribution<std::int64_t>(0, count)(rng));
  std::sort(cuts.begin(), cuts.end());
  CAPTURE(count);
  const auto expected = run_loop_kernel(*codegen::compile_loop_kernel(jit, ordinary), ordinary, domain, {0, count});
  const auto actual = run_loop_kernel(*codegen::compile_loop_kernel(jit, streaming), streaming, domain, cuts);
  CHECK(actual == expected);
  CHECK(codegen::testing::matches_interpreter(jit, streaming, cuts));
}

// Where a tile sits in a buffer: its first element and its row stride, in elements.
struct TilePlace {
  std::int64_t first, row_stride;
};

// One run of a tile kernel over `rows` x `columns` of the input `c` (its own place, as the GEMM's
// scratch has its own alignment) into two outputs at `out` (so their rows start at any
// alignment). Output 0 (f32) and output 1 (f64) share one element index from 64-byte aligned
// bases, as the runtime's epilogue outputs do, and start filled with a marker the kernel must
// leave alone outside the tile. Returns both outputs' bytes.
std::vector<unsigned char> run_tile(const codegen::KernelHandle& kernel, const ir::NodePtr& c, TilePlace in,
                                    std::int64_t rows, std::int64_t columns, TilePlace out) {
  const std::int64_t first = out.first, ldc = out.row_stride;
  const std::int64_t elements = first + rows * ldc;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(elements) * 12);
  auto f32_output = ir::Buffer::allocate(static_cast<std::size_t>(elements) * 4);
  auto f64_output = ir::Buffer::allocate(static_cast<std::size_t>(elements) * 8);
  std::fill_n(static_cast<float*>(f32_output->data()), elements, -7.25f);
  std::fill_n(static_cast<double*>(f64_output->data()), elements, -7.25);
  const auto& c_attr = c->attr<ir::InputAttr>();
  std::vector<const void*> inputs{static_cast<const float*>(c_attr.buffer->data()) + in.first};
  std::vector<std::int64_t> input_strides(codegen::kMaxLoopRank, 0), output_strides(2 * codegen::kMaxLoopRank, 0);
  input_strides[0] = in.row_stride;
  output_strides[0] = output_strides[codegen::kMaxLoopRank] = ldc;
  input_strides[1] = output_strides[1] = output_strides[codegen::kMaxLoopRank + 1] = 1;
  std::vector<void*> outputs{static_cast<float*>(f32_output->data()) + first,
                             static_cast<double*>(f64_output->data()) + first};
  codegen::testing::run_tile_kernel(*kernel, rows, columns, inputs, input_strides, outputs, output_strides);
  std::memcpy(bytes.data(), f32_output->data(), static_cast<std::size_t>(elements) * 4);
  std::memcpy(bytes.data() + elements * 4, f64_output->data(), static_cast<std::size_t>(elements) * 8);
  return bytes;
}

// f(c) in f32 and cast to f64, over a tile of a C of random floats: f is relu(c * 0.5) or, with
// vector math (whose loops interleave registers), gelu_tanh(c).
void check_streaming_tile(codegen::Jit& jit, bool vector_math, std::mt19937& rng) {
  const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 9)(rng);
  const std::int64_t columns = std::uniform_int_distribution<std::int64_t>(1, 300)(rng);
  std::uniform_int_distribution<std::int64_t> offset(0, 40);
  const TilePlace in{offset(rng), columns + offset(rng)}, out{offset(rng), columns + offset(rng)};
  CAPTURE(rows);
  CAPTURE(columns);
  CAPTURE(in.first);
  CAPTURE(in.row_stride);
  CAPTURE(out.first);
  CAPTURE(out.row_stride);
  auto c = random_input(DType::f32, {rows, columns}, {in.row_stride, 1}, in.first + rows * in.row_stride, 6);
  auto half = ir::make_constant(DType::f32, {rows, columns}, ir::Scalar::of(DType::f32, 0.5));
  auto value = vector_math ? ir::make_unary(ir::Op::gelu_tanh, c)
                           : ir::make_unary(ir::Op::relu, ir::make_binary(ir::Op::mul, c, half));
  codegen::LoopKernelSpec ordinary;
  ordinary.form = codegen::LoopForm::tile;
  ordinary.expression.outputs = {value, ir::make_cast(value, DType::f64)};
  ordinary.inputs = {c};
  ordinary.access = {codegen::InnerAccess::contiguous};
  codegen::LoopKernelSpec streaming = ordinary;
  streaming.streaming_stores = true;
  const auto expected = run_tile(codegen::compile_loop_kernel(jit, ordinary), c, in, rows, columns, out);
  const auto actual = run_tile(codegen::compile_loop_kernel(jit, streaming), c, in, rows, columns, out);
  CHECK(actual == expected);
}

}  // namespace

TEST_CASE("streaming stores give the ordinary kernel's bits for any split, width and row start") {
  std::mt19937 rng(11);
  for (int bits : {128, 256, 512}) {
    CAPTURE(bits);
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    for (std::int64_t count : {1, 7, 16, 17, 63, 64, 65, 1000, 4099}) {
      check_streaming(jit, w1_graph({count}), rng);
      check_streaming(jit, mixed_graph(count), rng);
    }
    for (std::int64_t columns : {1, 5, 37, 130}) check_streaming(jit, w1_graph({9, columns}), rng);
  }
}

TEST_CASE("a streaming kernel's vector stores are non-temporal, and it ends with a fence, in both forms") {
  codegen::testing::ScratchDirectory directory("streaming-dump");
  codegen::Jit jit;
  for (codegen::LoopForm form : {codegen::LoopForm::flat, codegen::LoopForm::tile}) {
    const bool tile = form == codegen::LoopForm::tile;
    CAPTURE(tile);
    codegen::LoopKernelSpec spec = make_spec(w1_graph(tile ? ir::Shape{4, 100} : ir::Shape{100}));
    spec.form = form;
    spec.streaming_stores = true;
    const std::string name = tile ? "streaming_tile" : "streaming";
    const codegen::DumpRequest dump{directory.path(), name};
    codegen::compile_loop_kernel(jit, spec, &dump);
    const std::string assembly = codegen::testing::read_text(directory.path() / (name + ".s"));
    const std::string optimized = codegen::testing::read_text(directory.path() / (name + ".opt.ll"));
    CHECK(optimized.find("!nontemporal") != std::string::npos);
#if defined(__x86_64__)
    CHECK(assembly.find("vmovntps") != std::string::npos);
    CHECK(assembly.find("sfence") != std::string::npos);
#endif
  }
}

TEST_CASE("tile kernels with streaming stores give the ordinary tile kernel's bits at any alignment") {
  std::mt19937 rng(11);
  for (int bits : {128, 256, 512}) {
    CAPTURE(bits);
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    for (int i = 0; i < 12; ++i) {
      check_streaming_tile(jit, false, rng);
      check_streaming_tile(jit, true, rng);
    }
  }
}
