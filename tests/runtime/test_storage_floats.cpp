// f16 and bf16 through the public API (docs/contracts.md, "f16 and bf16"): promotion, each op
// computing in f32 and rounding its result (so a fused chain gives op-by-op bits), reductions and
// matmul accumulating in f32 and rounding once, printing, and the JIT against the interpreter.
// ctest runs this suite at VECTOR_BITS 128, 256 and 512 too (tests_runtime_vector_bits_*).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <tensorjit/tensorjit.hpp>

#include "codegen/vector_math_bounds.hpp"
#include "ir/random_graph.hpp"
#include "jit_oracle.hpp"

namespace tj = tensorjit;

namespace {

// A tensor of `dtype` holding n values spread over [-4, 4), special values among them.
tj::Tensor values(tj::DType dtype, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = std::uniform_real_distribution<float>(-4, 4)(rng);
  if (n > 4) v[0] = INFINITY, v[1] = -0.0f, v[2] = 1e-6f, v[3] = 70000.0f;
  return tj::tensor<float>({n}, v).astype(dtype);
}

// Bits of every element, NaNs made one.
std::vector<std::uint16_t> bits_of(const tj::Tensor& t) {
  std::vector<std::uint16_t> out;
  if (t.dtype() == tj::f16) {
    for (auto x : t.to_vector<tj::float16_t>()) out.push_back(std::isnan(static_cast<float>(x)) ? 0x7E00 : x.bits);
  } else {
    for (auto x : t.to_vector<tj::bfloat16_t>()) out.push_back(std::isnan(static_cast<float>(x)) ? 0x7FC0 : x.bits);
  }
  return out;
}

// `t` computed in f32 by the caller, rounded to `dtype`: what one op gives.
tj::Tensor rounded(const tj::Tensor& t, tj::DType dtype) { return t.astype(dtype); }

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("f16 and bf16: promotion as PyTorch, weak scalars keep the dtype") {
  const tj::Tensor h = tj::zeros({2}, tj::f16), b = tj::zeros({2}, tj::bf16);
  CHECK((h + h).dtype() == tj::f16);
  CHECK((b * b).dtype() == tj::bf16);
  CHECK((h + b).dtype() == tj::f32);
  CHECK((h + tj::zeros({2})).dtype() == tj::f32);
  CHECK((h + tj::zeros({2}, tj::f64)).dtype() == tj::f64);
  CHECK((h + tj::zeros({2}, tj::i64)).dtype() == tj::f16);
  CHECK((h * 2.5f).dtype() == tj::f16);
  CHECK((b + 1).dtype() == tj::bf16);
  CHECK(tj::promote_types(tj::f16, tj::bf16) == tj::f32);
  CHECK(tj::itemsize(tj::f16) == 2);
  CHECK(tj::dtype_name(tj::bf16) == "bf16");
}

TEST_CASE("f16 and bf16: a fused chain gives the bits of op-by-op evaluation in f32, rounded each op") {
  for (tj::DType dtype : {tj::f16, tj::bf16}) {
    CAPTURE(tj::dtype_name(dtype));
    const tj::Tensor x = values(dtype, 1000, 1), y = values(dtype, 1000, 2);
    const tj::Tensor fused = tj::maximum(x * y + x / (y * y + 0.5f), -x) * 1.1f;
    auto f = [](const tj::Tensor& t) { return t.astype(tj::f32); };
    const tj::Tensor xy = rounded(f(x) * f(y), dtype), yy = rounded(f(y) * f(y), dtype);
    const tj::Tensor yy_half = rounded(f(yy) + 0.5f, dtype);
    const tj::Tensor quotient = rounded(f(x) / f(yy_half), dtype);
    const tj::Tensor sum = rounded(f(xy) + f(quotient), dtype);
    const tj::Tensor biggest = rounded(tj::maximum(f(sum), -f(x)), dtype);
    const tj::Tensor scale = tj::full({}, 1.1, dtype);  // the weak scalar in the tensor's dtype
    const tj::Tensor op_by_op = rounded(f(biggest) * f(scale), dtype);
    CHECK(bits_of(fused) == bits_of(op_by_op));
  }
}

TEST_CASE("f16 and bf16: sums, softmax and matmul accumulate in f32 and round once") {
  for (tj::DType dtype : {tj::f16, tj::bf16}) {
    CAPTURE(tj::dtype_name(dtype));
    const tj::Tensor x = values(dtype, 4096, 3).slice(0, 4, 4096).reshape({4092 / 4, 4});
    CHECK(bits_of(x.sum({0})) == bits_of(x.astype(tj::f32).sum({0}).astype(dtype)));
    CHECK(bits_of(x.max({1})) == bits_of(x.astype(tj::f32).max({1}).astype(dtype)));
    // A mean is the f32 sum divided in f32, rounded once: no overflow of the sum in f16 (the
    // oracle found mean(f16[64] of 2234) giving inf, as PyTorch and NumPy do not).
    CHECK(bits_of(x.mean({0})) == bits_of((x.astype(tj::f32).sum({0}) / 1023.0).astype(dtype)));
    CHECK(tj::full({64}, 3072.0, dtype).mean().astype(tj::f32).item<float>() == 3072.0f);
    const tj::Tensor a = values(dtype, 96 * 64, 4).slice(0, 4, 4 + 95 * 64).reshape({95, 64});
    const tj::Tensor b = values(dtype, 64 * 33, 5).reshape({64, 33}) * 0.25f;
    CHECK(bits_of(tj::matmul(a, b)) == bits_of(tj::matmul(a.astype(tj::f32), b.astype(tj::f32)).astype(dtype)));
    const tj::Tensor relu = tj::relu(tj::matmul(a, b) + 1.0f);  // the epilogue rounds the product first
    const tj::Tensor product = tj::matmul(a.astype(tj::f32), b.astype(tj::f32)).astype(dtype);
    CHECK(bits_of(relu) == bits_of(rounded(tj::relu(rounded(product.astype(tj::f32) + 1.0f, dtype).astype(tj::f32)), dtype)));
  }
}

TEST_CASE("f16 and bf16 matmul: the GEMM converts the operands in its packing, the JIT against the interpreter") {
  // Run at every VECTOR_BITS and at 1 and 2 threads by ctest (*JIT*). Odd shapes, transposed and
  // strided views, a broadcast batch, an f32 partner, an epilogue; the 600 x 500 A is over the
  // unpacked path's 1 MiB once converted, so the five loops with their cache blocks run too.
  for (tj::DType dtype : {tj::f16, tj::bf16}) {
    CAPTURE(tj::dtype_name(dtype));
    auto matrix = [&](std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
      return (values(dtype, rows * cols, seed) * 0.25f).reshape({rows, cols});
    };
    const tj::Tensor a = matrix(95, 64, 4), b = matrix(64, 33, 5);
    std::vector<tj::Tensor> results = {
        tj::matmul(matrix(1, 1, 6), matrix(1, 1, 7)),
        tj::matmul(matrix(7, 3, 8), matrix(3, 5, 9)),
        tj::matmul(a, b),
        tj::matmul(matrix(64, 95, 10).transpose(), matrix(33, 64, 11).transpose()),  // column-major views
        tj::matmul(matrix(95, 128, 12).slice(1, 0, 128, 2), b),                   // every other column
        tj::matmul(values(dtype, 3 * 29 * 41, 13).reshape({3, 29, 41}), matrix(41, 70, 14)),  // B broadcast
        tj::matmul(a, b.astype(tj::f32)),                                         // f16/bf16 @ f32 is f32
        tj::relu(tj::matmul(a, b) + 1.0f),                                        // with an epilogue
        tj::matmul(matrix(600, 500, 15), matrix(500, 260, 16)),                   // the packed path
    };
    tj::testing::check_tensors_against_interpreter(results);
  }
}

TEST_CASE("f16 and bf16 matmul: no step converts the operands first") {
  for (tj::DType dtype : {tj::f16, tj::bf16}) {
    std::vector<tj::Tensor> operands = {values(dtype, 8 * 16, 1).reshape({8, 16}), values(dtype, 16 * 4, 2).reshape({16, 4})};
    tj::eval(operands);  // inputs now, in 16 bits
    const tj::Tensor &a = operands[0], &b = operands[1];
    const tj::ir::Graph graph = tj::detail::graph_for({tj::detail::node_of(tj::matmul(a, b), "test")});
    const tj::ir::Plan plan = tj::ir::plan_graph(graph);
    INFO(tj::ir::print_plan(plan));
    REQUIRE(plan.steps.size() == 1);  // the product, rounding to the 16-bit type in its epilogue
    CHECK(plan.steps.front().nodes.front()->op() == tj::ir::Op::matmul);
    // An operand computed by a loop is written in 16 bits, and the GEMM converts it.
    const tj::ir::Graph computed = tj::detail::graph_for({tj::detail::node_of(tj::matmul(a * 2.0f, b), "test")});
    const std::string text = tj::ir::print_plan(tj::ir::plan_graph(computed));
    INFO(text);
    CHECK(text.find("converted to f32 by its GEMM's packing") != std::string::npos);
  }
}

TEST_CASE("f16 and bf16: random graphs of every op kind, the JIT against the interpreter") {
  for (std::uint64_t seed : tj::testing::random_graph_seeds(9000, 100)) {
    tj::testing::RandomGraphOptions options;
    options.seed = seed;
    options.bind_inputs = true;
    options.dtypes = {tj::f16, tj::bf16, tj::f32, tj::boolean};
    options.excluded_ops = tj::codegen::testing::vector_math_ops();
    tj::testing::check_against_interpreter(tj::testing::random_graph(options));
  }
}

TEST_CASE("f16 and bf16: the transcendental ops are within one ulp of the rounded libm value") {
  for (tj::DType dtype : {tj::f16, tj::bf16}) {
    const tj::Tensor x = values(dtype, 4096, 6);
    for (auto [name, jit, reference] : {std::tuple{"exp", tj::exp(x), tj::exp(x.astype(tj::f64)).astype(dtype)},
                                        std::tuple{"tanh", tj::tanh(x), tj::tanh(x.astype(tj::f64)).astype(dtype)},
                                        std::tuple{"gelu", tj::gelu(x), tj::gelu(x.astype(tj::f64)).astype(dtype)}}) {
      CAPTURE(name);
      CAPTURE(tj::dtype_name(dtype));
      const auto got = bits_of(jit), expected = bits_of(reference);
      for (std::size_t i = 0; i < got.size(); ++i) {
        // Adjacent finite values of one sign differ by one in their bits.
        const int distance = std::abs(static_cast<int>(got[i]) - static_cast<int>(expected[i]));
        CHECK(distance <= 1);
      }
    }
  }
}

TEST_CASE("f16 and bf16: printing shows each value with the fewest digits that identify it") {
  CHECK(tj::tensor<float>({3}, {0.1f, 1.0f, -2.5f}).astype(tj::f16).to_string() == "[ 0.1  1.  -2.5]");
  CHECK(tj::tensor<float>({2}, {0.1f, 70000.0f}).astype(tj::f16).to_string() == "[0.1 inf]");
  CHECK(tj::tensor<float>({2}, {0.1f, 3.0f}).astype(tj::bf16).to_string() == "[0.1 3. ]");
  CHECK(tj::full({}, 65504.0, tj::f16).item<float>() == 65504.0f);
  CHECK(tj::full({}, 1.0 / 3, tj::bf16).item<tj::bfloat16_t>().bits == 0x3EAB);
}

}  // TEST_SUITE
