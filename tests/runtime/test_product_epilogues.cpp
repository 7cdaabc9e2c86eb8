// Product epilogues (ir/passes/fuse_epilogues.hpp, runtime/src/product_step.cpp): a matmul's
// elementwise consumers run on each tile of C inside the GEMM. The fused result must equal the
// unfused composition bit for bit: the product evaluated first (one FMA chain per element), then
// the same elementwise ops as a loop kernel. Ops without a transcendental function are also
// compared with the reference interpreter bit for bit; transcendental ones within a few ulp of it,
// since their vector code may be a polynomial rather than the interpreter's libm call (contract 4):
// within 1e-6 of max(1, |value|), about 8 ulp of 1.0f.
// Test names carry "JIT" so that ctest reruns them at every VECTOR_BITS and thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/tensorjit.hpp>

#include <tensorjit/ir/pipeline.hpp>
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;

namespace {

tj::Tensor random_tensor(const tj::Shape& shape, std::uint32_t seed, tj::DType dtype = tj::f32) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::int64_t numel = 1;
  for (auto e : shape) numel *= e;
  std::vector<float> values(static_cast<std::size_t>(numel));
  for (auto& v : values) v = uniform(generator);
  tj::Tensor t = tj::tensor<float>(shape, values);
  return dtype == tj::f32 ? t : t.astype(dtype).eval();
}

ir::Graph graph_of(const std::vector<tj::Tensor>& tensors) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& t : tensors) nodes.push_back(tj::detail::node_of(t, "test"));
  return tj::detail::graph_for(nodes);
}

// Values as doubles in row-major order, whatever the layout.
std::vector<double> elements(const ir::Value& v) {
  std::vector<double> out;
  const auto& shape = v.layout.shape;
  std::int64_t numel = 1;
  for (auto e : shape) numel *= e;
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t element = v.layout.offset, rest = flat;
    for (std::size_t d = shape.size(); d-- > 0;) {
      element += (rest % shape[d]) * v.layout.strides[d];
      rest /= shape[d];
    }
    if (v.dtype == tj::f32) out.push_back(static_cast<const float*>(v.buffer->data())[element]);
    else out.push_back(static_cast<const double*>(v.buffer->data())[element]);
  }
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The error of a transcendental activation against the interpreter's libm call, relative to the
// larger of 1 and the value: activations of O(1) inputs whose result is tiny (gelu of a negative
// input) are judged by the absolute error, others by the relative error.
double scaled_error(double actual, double expected) {
  if (actual == expected || (std::isnan(actual) && std::isnan(expected))) return 0;
  return std::abs(actual - expected) / std::max(1.0, std::abs(expected));
}

int count_products(const ir::Plan& plan) {
  int products = 0;
  for (const auto& step : plan.steps) products += step.kind == ir::Step::Kind::product;
  return products;
}

enum class Reference { exact, close };

// `epilogue(product)` fused (one product step) against the same ops on a materialised product,
// and against the interpreter.
void check_epilogue(const tj::Tensor& a, const tj::Tensor& b,
                    const std::function<tj::Tensor(const tj::Tensor&)>& epilogue,
                    Reference reference = Reference::exact, int expected_products = 1) {
  tj::Tensor fused = epilogue(tj::matmul(a, b));
  ir::Graph graph = graph_of({fused});
  ir::Plan plan = ir::plan_graph(graph);
  INFO(ir::print_plan(plan));
  CHECK(count_products(plan) == expected_products);

  std::vector<double> actual = elements(tj::detail::run_graph(graph).front());
  tj::Tensor product = tj::matmul(a, b).eval();
  tj::Tensor unfused = epilogue(product);
  std::vector<double> composed = elements(tj::detail::run_graph(graph_of({unfused})).front());
  CHECK(same_bits(actual, composed));

  std::vector<double> expected = elements(ir::interpret(graph).front());
  if (reference == Reference::exact) {
    CHECK(same_bits(actual, expected));
    return;
  }
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, scaled_error(actual[i], expected[i]));
  CHECK(worst <= 1e-6);  // about 8 ulp of 1.0f
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("product epilogues (JIT): bias along columns or rows, residual, scale, cast") {
  // 37 x 45 with k = 19: every edge tile of every micro-tile shape.
  auto x = random_tensor({37, 19}, 1);
  auto w = random_tensor({19, 45}, 2);
  auto column_bias = random_tensor({45}, 3);
  auto row_bias = random_tensor({37, 1}, 4);
  auto residual = random_tensor({37, 45}, 5);
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::relu(p + column_bias); });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::relu(p + row_bias); });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return p * 0.125f + residual; });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return (p + residual.transpose().transpose()) * 2.0f; });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return p + random_tensor({45, 37}, 6).transpose(); });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return (p + column_bias).astype(tj::f64); });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::maximum(p, 0.0f) - row_bias * p; });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::where(p > 0.0f, p, p * 0.01f); });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::clamp(p + 1.0f, 0.0f, 6.0f); });
  // 50 x 203: several full column blocks side by side per epilogue call (the unpacked path's
  // groups) and a partial one, with a residual and a transposed residual read per region.
  auto wide_w = random_tensor({19, 203}, 7);
  auto wide_x = random_tensor({50, 19}, 8);
  auto wide_residual = random_tensor({50, 203}, 9);
  auto wide_transposed = random_tensor({203, 50}, 10).transpose();
  check_epilogue(wide_x, wide_w, [&](const tj::Tensor& p) { return tj::relu(p) + wide_residual; });
  check_epilogue(wide_x, wide_w, [&](const tj::Tensor& p) { return p * wide_transposed - wide_residual; });
}

TEST_CASE("product epilogues (JIT): every activation") {
  auto x = random_tensor({29, 33}, 7);
  auto w = random_tensor({33, 70}, 8);
  auto bias = random_tensor({70}, 9);
  using Activation = tj::Tensor (*)(const tj::Tensor&);
  const std::pair<const char*, Activation> exact[] = {
      {"relu", &tj::relu}, {"abs", &tj::abs}, {"square", &tj::square}, {"sign", &tj::sign}};
  for (const auto& [name, activation] : exact) {
    INFO(std::string(name));
    check_epilogue(x, w, [&](const tj::Tensor& p) { return activation(p + bias); });
  }
  const std::pair<const char*, Activation> transcendental[] = {
      {"gelu", &tj::gelu}, {"gelu_tanh", &tj::gelu_tanh}, {"silu", &tj::silu},
      {"sigmoid", &tj::sigmoid}, {"tanh", &tj::tanh}, {"softplus", &tj::softplus},
      {"erf", &tj::erf}, {"exp", &tj::exp}};
  for (const auto& [name, activation] : transcendental) {
    INFO(std::string(name));
    check_epilogue(x, w, [&](const tj::Tensor& p) { return activation(p + bias); }, Reference::close);
  }
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::sqrt(tj::abs(p)); });
}

TEST_CASE("product epilogues (JIT): f64, transposed operands, sizes on both GEMM paths") {
  auto bias64 = random_tensor({31}, 10, tj::f64);
  check_epilogue(random_tensor({23, 17}, 11, tj::f64), random_tensor({17, 31}, 12, tj::f64),
                 [&](const tj::Tensor& p) { return tj::relu(p + bias64); });
  // Operands that are views go to the GEMM without a copy.
  auto xt = random_tensor({40, 50}, 13);  // x = xt.T is 50 x 40
  auto wt = random_tensor({61, 40}, 14);  // w = wt.T is 40 x 61
  auto bias = random_tensor({61}, 15);
  check_epilogue(xt.transpose(), wt.transpose(), [&](const tj::Tensor& p) { return tj::relu(p + bias); });
  check_epilogue(xt.transpose().flip(0), random_tensor({40, 61}, 16),
                 [&](const tj::Tensor& p) { return p * 3.0f - bias; });
  // A of 600 x 600 f32 is larger than L2: the packed five loops, split over the pool.
  auto big_bias = random_tensor({333}, 17);
  check_epilogue(random_tensor({600, 600}, 18), random_tensor({600, 333}, 19),
                 [&](const tj::Tensor& p) { return tj::relu(p + big_bias); });
  // Tiny and degenerate shapes: one element, one row, one column.
  check_epilogue(random_tensor({1, 5}, 20), random_tensor({5, 1}, 21), [](const tj::Tensor& p) { return p + 1.0f; });
  check_epilogue(random_tensor({1, 7}, 22), random_tensor({7, 9}, 23), [](const tj::Tensor& p) { return tj::relu(p); });
  check_epilogue(random_tensor({9, 7}, 24), random_tensor({7, 1}, 25), [](const tj::Tensor& p) { return tj::relu(p); });
}

TEST_CASE("product epilogues (JIT): batches with broadcast batch axes") {
  auto bias = random_tensor({21}, 30);
  // A batch of 3 against one shared weight matrix (the weight's batch stride is 0).
  check_epilogue(random_tensor({3, 13, 11}, 31), random_tensor({11, 21}, 32),
                 [&](const tj::Tensor& p) { return tj::relu(p + bias); });
  // Two batch axes, each broadcast on one side: [2, 1, m, k] x [3, k, n] -> [2, 3, m, n], with a
  // per-batch bias along rows and a residual over everything.
  auto per_batch_bias = random_tensor({3, 1, 21}, 33);
  auto residual = random_tensor({2, 3, 13, 21}, 34);
  check_epilogue(random_tensor({2, 1, 13, 11}, 35), random_tensor({3, 11, 21}, 36),
                 [&](const tj::Tensor& p) { return tj::relu(p + per_batch_bias) + residual; });
  // A shared weight whose batch folds into the rows (one product of 4 x 13 rows) only when every
  // operand's rows go on across the batches: a residual per batch does, one broadcast over the
  // batches does not, nor does A sliced out of taller matrices, nor a bias per batch.
  auto x = random_tensor({4, 13, 11}, 40);
  auto shared = random_tensor({11, 21}, 41);
  auto residual_per_batch = random_tensor({4, 13, 21}, 42);
  auto residual_shared = random_tensor({13, 21}, 43);
  auto bias_per_batch = random_tensor({4, 1, 21}, 44);
  check_epilogue(x, shared, [&](const tj::Tensor& p) { return p + bias + residual_per_batch; });
  check_epilogue(x, shared, [&](const tj::Tensor& p) { return p + bias + residual_shared; });
  check_epilogue(x, shared, [&](const tj::Tensor& p) { return p + bias_per_batch; });
  check_epilogue(random_tensor({4, 20, 11}, 45).slice(1, 2, 15), shared, [&](const tj::Tensor& p) { return p * 2.0f; });
  check_epilogue(x, shared.transpose().transpose(), [&](const tj::Tensor& p) { return p + bias; });
  auto row_bias = random_tensor({2, 1, 13, 1}, 37);
  check_epilogue(random_tensor({2, 3, 13, 11}, 38), random_tensor({2, 3, 11, 21}, 39),
                 [&](const tj::Tensor& p) { return p * row_bias; });
}

// A bias along the rows and/or relu alone are applied by the GEMM to its accumulators before the
// store (kernels::StoreStage): no loop kernel, the same bits.
TEST_CASE("product epilogues (JIT): a bias and relu alone, in the GEMM's store stage") {
  auto x = random_tensor({37, 19}, 50);
  auto w = random_tensor({19, 45}, 51);
  auto bias = random_tensor({45}, 52);
  check_epilogue(x, w, [&](const tj::Tensor& p) { return p + bias; });
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::relu(bias + p); });
  // A bias that is a view with an offset (row 1 of a [2, 45] tensor).
  auto biases = random_tensor({2, 45}, 53);
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::relu(p + biases.slice(0, 1, 2).squeeze(0)); });
  // An f64 bias promotes the add to f64: not the stage (its dtype differs), still the same bits.
  auto bias64 = random_tensor({45}, 54, tj::f64);
  check_epilogue(x, w, [&](const tj::Tensor& p) { return tj::relu(p + bias64); });
  // Outer batch axes the runtime walks, with a bias per batch of both axes, and one per outer batch only.
  auto a = random_tensor({2, 3, 13, 11}, 55);
  auto b = random_tensor({3, 11, 21}, 56);
  auto per_batch = random_tensor({2, 3, 1, 21}, 57);
  check_epilogue(a, b, [&](const tj::Tensor& p) { return tj::relu(p + per_batch); });
  auto per_outer = random_tensor({2, 1, 1, 21}, 58);
  check_epilogue(a, b, [&](const tj::Tensor& p) { return tj::relu(p + per_outer); });
  // Large enough for the packed five loops on the pool.
  auto big_bias = random_tensor({2, 1, 333}, 59, tj::f64);
  check_epilogue(random_tensor({2, 300, 600}, 60, tj::f64), random_tensor({600, 333}, 61, tj::f64),
                 [&](const tj::Tensor& p) { return p + big_bias; });
}

TEST_CASE("product epilogues (JIT): several outputs, the product as an output, what is not fused") {
  auto x = random_tensor({19, 23}, 40);
  auto w = random_tensor({23, 37}, 41);
  auto bias = random_tensor({37}, 42);
  auto p = tj::matmul(x, w);
  auto first = tj::relu(p + bias);
  auto second = (p * 2.0f).astype(tj::f64);
  // Two consumer groups (relu's and the cast's are not joined through the matmul) stay unfused.
  const std::pair<std::vector<tj::Tensor>, int> cases[] = {
      {{p, first}, 1}, {{first, p}, 1}, {{first, second}, 0}, {{p, second}, 1}};
  for (const auto& [outputs, products] : cases) {
    ir::Graph graph = graph_of(outputs);
    ir::Plan plan = ir::plan_graph(graph);
    INFO(ir::print_plan(plan));
    CHECK(count_products(plan) == products);
    auto actual = tj::detail::run_graph(graph);
    auto expected = ir::interpret(graph);
    for (std::size_t i = 0; i < expected.size(); ++i) CHECK(same_bits(elements(actual[i]), elements(expected[i])));
  }
  // The product read through a view, or by two groups of different shapes: no epilogue.
  check_epilogue(x, w, [&](const tj::Tensor& q) { return q + q.flip(0); }, Reference::exact, 0);
  check_epilogue(x, w, [&](const tj::Tensor& q) { return (q + bias).sum({0}) + q.sum({0}); },
                 Reference::exact, 0);
}

TEST_CASE("product epilogues (JIT): more leaves than the trampoline keeps on its stack") {
  auto x = random_tensor({21, 9}, 70);
  auto w = random_tensor({9, 35}, 71);
  std::vector<tj::Tensor> residuals;
  for (std::uint32_t i = 0; i < 20; ++i) residuals.push_back(random_tensor({21, 35}, 72 + i));
  check_epilogue(x, w, [&](const tj::Tensor& p) {
    tj::Tensor sum = p;
    for (const auto& r : residuals) sum = sum + r;
    return sum;
  });
}

TEST_CASE("product epilogues (JIT): a two-layer MLP against the interpreter") {
  auto x = random_tensor({64, 78}, 50);
  auto w1 = random_tensor({78, 51}, 51) * 0.1f;
  auto b1 = random_tensor({51}, 52);
  auto w2 = random_tensor({51, 10}, 53) * 0.1f;
  auto b2 = random_tensor({10}, 54);
  auto logits = tj::matmul(tj::relu(tj::matmul(x, w1) + b1), w2) + b2;
  ir::Graph graph = graph_of({logits});
  ir::Plan plan = ir::plan_graph(graph);
  INFO(ir::print_plan(plan));
  CHECK(count_products(plan) == 2);
  CHECK(same_bits(elements(tj::detail::run_graph(graph).front()), elements(ir::interpret(graph).front())));
}

TEST_CASE("product epilogues: the plan shows the product with its epilogue") {
  auto x = random_tensor({8, 4}, 60);
  auto w = random_tensor({4, 6}, 61);
  auto b = random_tensor({6}, 62);
  ir::Plan plan = ir::plan_graph(graph_of({tj::relu(tj::matmul(x, w) + b)}));
  const std::string text = ir::print_plan(plan);
  INFO(text);
  REQUIRE(plan.steps.size() == 1);
  CHECK(text.find("step 0: product over f32[8, 6]") != std::string::npos);
  CHECK(text.find(":matmul\n  epilogue %") != std::string::npos);
  CHECK(text.find(":relu") != std::string::npos);
}

}  // TEST_SUITE
