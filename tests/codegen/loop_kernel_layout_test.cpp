// Loop kernels over every access class (contiguous, broadcast, strided with positive and negative
// strides, transposed), domains whose rows are not multiples of the vector length, any split of the
// range, every vector width (the same bits at each), several outputs, and the kernel key.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <vector>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "codegen_test_support.hpp"
#include "loop_kernel_testing.hpp"
#include "ir/random_graph.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::InnerAccess;
using codegen::testing::contiguous_bytes;
using codegen::testing::first_difference;
using codegen::testing::make_spec;
using codegen::testing::matches_interpreter;
using codegen::testing::run_loop_kernel;
using tensorjit::DType;

namespace {

enum class LayoutKind {
  contiguous,
  broadcast_inner,
  broadcast_all,
  stride_two,
  reversed,
  transposed,
  flipped_outer
};
constexpr LayoutKind kLayoutKinds[] = {LayoutKind::contiguous,  LayoutKind::broadcast_inner,
                                       LayoutKind::broadcast_all, LayoutKind::stride_two,
                                       LayoutKind::reversed,      LayoutKind::transposed,
                                       LayoutKind::flipped_outer};

// A layout of `shape` of the given kind, never reaching below element 0 of its buffer.
ir::Layout make_layout(const ir::Shape& shape, LayoutKind kind) {
  const int rank = static_cast<int>(shape.size());
  ir::Layout layout{shape, ir::Strides(rank, 0), 0};
  if (kind == LayoutKind::broadcast_all || rank == 0) return layout;
  std::vector<int> order(rank);  // storage order, outermost first
  for (int d = 0; d < rank; ++d) order[d] = d;
  if (kind == LayoutKind::transposed && rank >= 2) std::swap(order[rank - 1], order[rank - 2]);
  std::int64_t stride = kind == LayoutKind::stride_two ? 2 : 1;
  for (int k = rank - 1; k >= 0; --k) {
    const int axis = order[k];
    const bool dropped = kind == LayoutKind::broadcast_inner && axis == rank - 1;
    layout.strides[axis] = dropped ? 0 : stride;
    if (!dropped)
      stride *= std::max<std::int64_t>(shape[axis], 1) + (k == 0 ? 0 : 1);  // padded rows
  }
  auto flip = [&](int axis) {
    if (shape[axis] == 0) return;
    layout.offset += (shape[axis] - 1) * layout.strides[axis];
    layout.strides[axis] = -layout.strides[axis];
  };
  if (kind == LayoutKind::reversed) flip(rank - 1);
  if (kind == LayoutKind::flipped_outer && rank >= 2) flip(0);
  return layout;
}

ir::NodePtr random_input(const ir::Shape& shape, DType dtype, LayoutKind kind,
                         std::mt19937_64& rng) {
  ir::Layout layout = make_layout(shape, kind);
  auto buffer = tensorjit::testing::random_buffer(layout, dtype, rng, /*special_values=*/true);
  if (buffer->bytes() == 0) buffer = ir::Buffer::allocate(itemsize(dtype));
  return ir::make_input(std::move(buffer), dtype, std::move(layout));
}

// Three outputs over three f32 inputs and one i32 input:
//   y0 = where(a > b, a*b + c, maximum(c, relu(a))) * 0.5      (f32)
//   y1 = cast(n, f32) + a  != b                                 (bool)
//   y2 = n // 3 + (n << 2)                                      (i32)
ir::Graph mixed_graph(const ir::Shape& shape, const LayoutKind kinds[4], std::mt19937_64& rng) {
  auto a = random_input(shape, DType::f32, kinds[0], rng);
  auto b = random_input(shape, DType::f32, kinds[1], rng);
  auto c = random_input(shape, DType::f32, kinds[2], rng);
  auto n = random_input(shape, DType::i32, kinds[3], rng);
  auto half = ir::make_constant(DType::f32, shape, ir::Scalar::of(DType::f32, 0.5));
  auto three = ir::make_constant(DType::i32, shape, ir::Scalar::of_int(DType::i32, 3));
  auto two = ir::make_constant(DType::i32, shape, ir::Scalar::of_int(DType::i32, 2));
  using ir::Op;
  auto sum = ir::make_binary(Op::add, ir::make_binary(Op::mul, a, b), c);
  auto other = ir::make_binary(Op::maximum, c, ir::make_unary(Op::relu, a));
  auto chosen = ir::Node::make(Op::where, {ir::make_binary(Op::gt, a, b), sum, other});
  auto y0 = ir::make_binary(Op::mul, chosen, half);
  auto y1 = ir::make_binary(Op::ne, ir::make_binary(Op::add, ir::make_cast(n, DType::f32), a), b);
  auto y2 = ir::make_binary(Op::add, ir::make_binary(Op::div, n, three),
                            ir::make_binary(Op::left_shift, n, two));
  return ir::Graph{{y0, y1, y2}};
}

const std::vector<ir::Shape> kDomains = {
    {}, {0}, {1}, {2}, {3}, {7}, {31}, {33}, {1000}, {3, 0}, {3, 7}, {5, 33}, {4, 1}, {1, 17},
    {2, 3, 31}, {2, 1, 3, 5}, {3, 2, 2, 2, 9}, {2, 1, 2, 1, 3, 1, 2, 5}};

// Cut points for a range of `count`: a few random pieces, or every element on its own.
std::vector<std::int64_t> random_cuts(std::int64_t count, std::mt19937_64& rng, bool singles) {
  std::vector<std::int64_t> cuts{0};
  if (singles) {
    for (std::int64_t i = 1; i <= count; ++i) cuts.push_back(i);
    return cuts;
  }
  for (int i = 0; i < 4; ++i)
    cuts.push_back(std::uniform_int_distribution<std::int64_t>(0, count)(rng));
  cuts.push_back(count);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

std::int64_t numel(const ir::Shape& shape) {
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  return count;
}

}  // namespace

TEST_CASE("every access class, domain and split gives the interpreter's bits at every width") {
  std::vector<std::unique_ptr<codegen::Jit>> jits;
  for (int bits : codegen::kVectorBitsChoices) {
    jits.push_back(std::make_unique<codegen::Jit>(codegen::testing::options_with_width(bits)));
  }
  std::mt19937_64 rng(7);
  int combination = 0;
  for (const auto& domain : kDomains) {
    for (LayoutKind first : kLayoutKinds) {
      for (LayoutKind second : kLayoutKinds) {
        ++combination;
        const LayoutKind kinds[4] = {first, second, kLayoutKinds[combination % 7],
                                     kLayoutKinds[(combination / 7) % 7]};
        CAPTURE(ir::shape_str(domain));
        CAPTURE(static_cast<int>(first));
        CAPTURE(static_cast<int>(second));
        CAPTURE(static_cast<int>(kinds[2]));
        CAPTURE(static_cast<int>(kinds[3]));
        ir::Graph graph = mixed_graph(domain, kinds, rng);
        auto spec = make_spec(graph);
        const std::int64_t count = numel(domain.empty() ? ir::Shape{1} : domain);
        // The interpreter's bits at the first width, whole range.
        REQUIRE(matches_interpreter(*jits[0], spec));
        std::vector<std::vector<unsigned char>> reference;
        for (const auto& value : ir::interpret(graph)) reference.push_back(contiguous_bytes(value));
        for (auto& jit : jits) {
          auto kernel = codegen::compile_loop_kernel(*jit, spec);
          for (bool singles : {false, count <= 40}) {
            const auto cuts = random_cuts(count, rng, singles);
            const auto outputs = run_loop_kernel(*kernel, spec, domain, cuts);
            for (std::size_t j = 0; j < outputs.size(); ++j) {
              CAPTURE(jit->target().vector_bits);
              CAPTURE(j);
              CHECK(first_difference(graph.outputs[j]->dtype(), outputs[j], reference[j]) < 0);
            }
          }
        }
      }
    }
  }
  // 3^4 access-class combinations at most, whatever the domains: sizes do not recompile.
  CHECK(jits[0]->stats().compiles <= 81);
}

TEST_CASE("the same bits, byte for byte, at 128, 256 and 512 bits and across splits") {
  // A graph whose results hold no NaN made from two NaNs: every byte is reproducible.
  std::mt19937_64 rng(11);
  const ir::Shape domain{7, 131};
  const LayoutKind kinds[4] = {LayoutKind::contiguous, LayoutKind::stride_two,
                               LayoutKind::broadcast_inner, LayoutKind::reversed};
  ir::Graph graph = mixed_graph(domain, kinds, rng);
  auto spec = make_spec(graph);
  std::vector<std::vector<std::vector<unsigned char>>> results;
  for (int bits : codegen::kVectorBitsChoices) {
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    auto kernel = codegen::compile_loop_kernel(jit, spec);
    results.push_back(run_loop_kernel(*kernel, spec, domain));
    results.push_back(
        run_loop_kernel(*kernel, spec, domain, random_cuts(numel(domain), rng, false)));
    results.push_back(
        run_loop_kernel(*kernel, spec, domain, random_cuts(numel(domain), rng, true)));
  }
  for (const auto& result : results) CHECK(result == results.front());
}

TEST_CASE("outputs may be input leaves, constants and shared values") {
  std::mt19937_64 rng(9);
  for (const auto& domain : {ir::Shape{37}, ir::Shape{3, 11}}) {
    auto x = random_input(domain, DType::f64, LayoutKind::reversed, rng);
    auto flags = random_input(domain, DType::boolean, LayoutKind::stride_two, rng);
    auto seven = ir::make_constant(DType::i64, domain, ir::Scalar::of_int(DType::i64, 7));
    auto root = ir::make_unary(ir::Op::sqrt, x);
    auto y = ir::make_binary(ir::Op::add, root, root);
    ir::Graph graph{{x, seven, y, root, ir::make_unary(ir::Op::logical_not, flags), flags}};
    codegen::Jit jit;
    CHECK(matches_interpreter(jit, make_spec(graph)));
  }
}

TEST_CASE("the key names structure, not sizes") {
  std::mt19937_64 rng(3);
  const LayoutKind contiguous[4] = {LayoutKind::contiguous, LayoutKind::contiguous,
                                    LayoutKind::contiguous, LayoutKind::contiguous};
  const LayoutKind strided[4] = {LayoutKind::stride_two, LayoutKind::contiguous,
                                 LayoutKind::contiguous, LayoutKind::contiguous};
  const auto small = make_spec(mixed_graph({3, 7}, contiguous, rng));
  const auto large = make_spec(mixed_graph({1000}, contiguous, rng));
  const auto other_class = make_spec(mixed_graph({3, 7}, strided, rng));
  CHECK(codegen::loop_kernel_key(small) == codegen::loop_kernel_key(large));
  CHECK(codegen::loop_kernel_key(small) != codegen::loop_kernel_key(other_class));

  // Constants count bitwise: 0.0 and -0.0 are different kernels.
  auto x = random_input({5}, DType::f32, LayoutKind::contiguous, rng);
  auto plus_zero = ir::make_binary(
      ir::Op::add, x, ir::make_constant(DType::f32, {5}, ir::Scalar::of(DType::f32, 0.0)));
  auto minus_zero = ir::make_binary(
      ir::Op::add, x, ir::make_constant(DType::f32, {5}, ir::Scalar::of(DType::f32, -0.0)));
  CHECK(codegen::loop_kernel_key(make_spec({{plus_zero}})) !=
        codegen::loop_kernel_key(make_spec({{minus_zero}})));
  // Wiring counts: a - b is not b - a.
  auto y = random_input({5}, DType::f32, LayoutKind::contiguous, rng);
  auto forward = make_spec({{ir::make_binary(ir::Op::sub, x, y)}});
  auto backward = make_spec({{ir::make_binary(ir::Op::sub, y, x)}});
  backward.inputs = forward.inputs;
  CHECK(codegen::loop_kernel_key(forward) != codegen::loop_kernel_key(backward));

  // A new size reuses the compiled kernel.
  codegen::Jit jit;
  auto first = codegen::compile_loop_kernel(jit, small);
  const auto compiles = jit.stats().compiles;
  auto second = codegen::compile_loop_kernel(jit, large);
  CHECK(jit.stats().compiles == compiles);
  CHECK(first->address() == second->address());
  CHECK(matches_interpreter(jit, large));
}

TEST_CASE("a spec that breaks the contract is an internal error") {
  std::mt19937_64 rng(5);
  auto x = random_input({4}, DType::f32, LayoutKind::contiguous, rng);
  auto y = ir::make_unary(ir::Op::exp, x);
  codegen::LoopKernelSpec missing_input;
  missing_input.expression = {{y}};
  CHECK_THROWS_AS(codegen::loop_kernel_key(missing_input), tensorjit::InternalError);
  auto view = make_spec({{ir::make_reshape(y, {2, 2})}});
  CHECK_THROWS_AS(codegen::loop_kernel_key(view), tensorjit::InternalError);
}

TEST_CASE("W1's assembly is vector code without FMA at each width") {
  // y = max(a*b + c, 0) * 0.5 over f32.
  std::mt19937_64 rng(1);
  const ir::Shape domain{1000};
  auto a = random_input(domain, DType::f32, LayoutKind::contiguous, rng);
  auto b = random_input(domain, DType::f32, LayoutKind::contiguous, rng);
  auto c = random_input(domain, DType::f32, LayoutKind::contiguous, rng);
  auto zero = ir::make_constant(DType::f32, domain, ir::Scalar::of(DType::f32, 0.0));
  auto half = ir::make_constant(DType::f32, domain, ir::Scalar::of(DType::f32, 0.5));
  auto sum = ir::make_binary(ir::Op::add, ir::make_binary(ir::Op::mul, a, b), c);
  auto y = ir::make_binary(ir::Op::mul, ir::make_binary(ir::Op::maximum, sum, zero), half);
  auto spec = make_spec({{y}});
  codegen::testing::ScratchDirectory folder("loop-kernel-dump");
  for (int bits : codegen::kVectorBitsChoices) {
    CAPTURE(bits);
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    codegen::DumpRequest dump{folder.path(), "w1_" + std::to_string(bits)};
    auto kernel = codegen::compile_loop_kernel(jit, spec, &dump);
    CHECK(matches_interpreter(jit, spec));
    const auto assembly = codegen::testing::read_text(folder.path() / (dump.kernel_name + ".s"));
    REQUIRE_FALSE(assembly.empty());
    CHECK(assembly.find("fmadd") == std::string::npos);
    CHECK(assembly.find("vmulps") != std::string::npos);
    const bool has_ymm = assembly.find("ymm") != std::string::npos;
    const bool has_zmm = assembly.find("zmm") != std::string::npos;
    if (bits == 128) CHECK_FALSE((has_ymm || has_zmm));
    if (bits == 256) CHECK((has_ymm && !has_zmm));
    if (bits == 512 && jit.target().native_vector_bits == 512) CHECK(has_zmm);
  }
}
