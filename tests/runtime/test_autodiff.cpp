// tj::grad through the public API: the layers and losses against central differences in f64 (run
// by the JIT), the JIT's gradients against the interpreter's bits, the plans the backward passes
// fuse into, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/tensorjit.hpp>

#include "jit_oracle.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;

namespace {

tj::Tensor random_tensor(std::mt19937_64& rng, const tj::Shape& shape, double low = -2, double high = 2,
                         tj::DType dtype = tj::f64) {
  std::int64_t count = 1;
  for (auto e : shape) count *= e;
  std::vector<double> values(static_cast<std::size_t>(count));
  std::uniform_real_distribution<double> value(low, high);
  for (auto& v : values) v = value(rng);
  return tj::tensor<double>(shape, values).astype(dtype);
}

using Function = std::function<tj::Tensor(const std::vector<tj::Tensor>&)>;

// grad(f) against central differences of f, evaluated by the JIT in f64.
void check_against_differences(const Function& f, const std::vector<tj::Tensor>& inputs,
                               double tolerance = 1e-6) {
  tj::Tensor loss = f(inputs);
  std::vector<tj::Tensor> gradients = tj::grad(loss, inputs);
  tj::eval(gradients);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<double> analytic = gradients[i].to_vector<double>();
    const std::vector<double> base = inputs[i].to_vector<double>();
    for (std::size_t j = 0; j < base.size(); ++j) {
      auto at = [&](double delta) {
        std::vector<double> moved = base;
        moved[j] += delta;
        std::vector<tj::Tensor> args = inputs;
        args[i] = tj::tensor<double>(inputs[i].shape(), moved);
        return f(args).item<double>();
      };
      const double h = 1e-6 * std::max(1.0, std::abs(base[j]));
      const double numeric = (at(h) - at(-h)) / (2 * h);
      CAPTURE(i);
      CAPTURE(j);
      CHECK(std::abs(numeric - analytic[j]) <= tolerance * std::max(1.0, std::abs(analytic[j])));
    }
  }
}

// A fixed random weighting of every element: the scalar whose gradient is a VJP with that weight.
tj::Tensor weighted_sum(const tj::Tensor& y, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return (y * random_tensor(rng, y.shape(), -1, 1, y.dtype())).sum();
}

}  // namespace

TEST_CASE("autodiff: the layers against central differences") {
  std::mt19937_64 rng(1);
  const tj::Shape shape{3, 5};
  check_against_differences([](const auto& x) { return weighted_sum(tj::softmax(x[0], -1), 2); },
                            {random_tensor(rng, shape, -3, 3)});
  check_against_differences([](const auto& x) { return weighted_sum(tj::softmax(x[0], 0), 3); },
                            {random_tensor(rng, shape, -3, 3)});
  check_against_differences([](const auto& x) { return weighted_sum(tj::log_softmax(x[0], -1), 4); },
                            {random_tensor(rng, shape, -3, 3)});
  check_against_differences(
      [](const auto& x) { return weighted_sum(tj::layernorm(x[0], x[1], x[2], 1e-5), 5); },
      {random_tensor(rng, shape), random_tensor(rng, {5}), random_tensor(rng, {5})});
  check_against_differences([](const auto& x) { return weighted_sum(tj::rmsnorm(x[0], x[1], 1e-6), 6); },
                            {random_tensor(rng, shape), random_tensor(rng, {5})});
  check_against_differences(
      [](const auto& x) { return weighted_sum(tj::gelu(x[0]) * tj::sigmoid(x[0].transpose()).transpose(), 7); },
      {random_tensor(rng, shape)});
}

TEST_CASE("autodiff: losses and a small MLP against central differences") {
  std::mt19937_64 rng(2);
  const tj::Tensor labels = tj::tensor<std::int64_t>({4}, {2, 0, 1, 2});
  check_against_differences([&](const auto& x) { return tj::cross_entropy(x[0], labels); },
                            {random_tensor(rng, {4, 3}, -3, 3)});
  check_against_differences([&](const auto& x) { return tj::cross_entropy(x[0], tj::softmax(x[1], -1)); },
                            {random_tensor(rng, {4, 3}), random_tensor(rng, {4, 3})});
  check_against_differences([](const auto& x) { return tj::mse_loss(x[0], x[1]); },
                            {random_tensor(rng, {4, 3}), random_tensor(rng, {3})});
  // relu(x @ w1 + b1) @ w2 + b2 with cross-entropy; x read through a transposed view.
  const tj::Tensor x = random_tensor(rng, {5, 4}).transpose();
  check_against_differences(
      [&](const auto& p) {
        tj::Tensor hidden = tj::relu(tj::matmul(x, p[0]) + p[1]);
        return tj::cross_entropy(tj::matmul(hidden, p[2]) + p[3], labels);
      },
      {random_tensor(rng, {5, 6}), random_tensor(rng, {6}), random_tensor(rng, {6, 3}), random_tensor(rng, {3})});
}

TEST_CASE("autodiff JIT: an MLP's gradients are the interpreter's bits") {
  std::mt19937_64 rng(3);
  for (tj::DType dtype : {tj::f32, tj::f64}) {
    tj::Tensor x = random_tensor(rng, {16, 8}, -1, 1, dtype), target = random_tensor(rng, {16, 4}, -1, 1, dtype);
    tj::Tensor w1 = random_tensor(rng, {8, 32}, -1, 1, dtype), b1 = random_tensor(rng, {32}, -1, 1, dtype);
    tj::Tensor w2 = random_tensor(rng, {32, 4}, -1, 1, dtype), b2 = random_tensor(rng, {4}, -1, 1, dtype);
    tj::eval({x, target, w1, b1, w2, b2});
    tj::Tensor loss = tj::mse_loss(tj::matmul(tj::relu(tj::matmul(x, w1) + b1), w2) + b2, target);
    std::vector<tj::Tensor> g = tj::grad(loss, {w1, b1, w2, b2});
    std::vector<tensorjit::ir::NodePtr> nodes{tj::detail::node_of(loss, "test")};
    for (const auto& t : g) nodes.push_back(tj::detail::node_of(t, "test"));
    tensorjit::testing::check_against_interpreter(tj::detail::graph_for(nodes));
  }
}

TEST_CASE("autodiff: the backward passes of softmax with cross-entropy and of layernorm are row kernels") {
  std::mt19937_64 rng(4);
  auto plan_of = [](const std::vector<tj::Tensor>& ts) {
    std::vector<tensorjit::ir::NodePtr> nodes;
    for (const auto& t : ts) nodes.push_back(tj::detail::node_of(t, "test"));
    return tensorjit::ir::print_plan(tensorjit::ir::plan_graph(tj::detail::graph_for(nodes)));
  };
  tj::Tensor logits = random_tensor(rng, {64, 10}, -1, 1, tj::f32);
  tj::Tensor labels = tj::tensor<std::int64_t>({64}, std::vector<std::int64_t>(64, 3));
  tj::eval({logits, labels});
  tj::Tensor d_logits = tj::grad(tj::cross_entropy(logits, labels), {logits})[0];
  INFO(plan_of({d_logits}));
  CHECK(plan_of({d_logits}).find("row") != std::string::npos);

  tj::Tensor x = random_tensor(rng, {64, 256}, -1, 1, tj::f32), dy = random_tensor(rng, {64, 256}, -1, 1, tj::f32);
  tj::Tensor gamma = random_tensor(rng, {256}, -1, 1, tj::f32), beta = random_tensor(rng, {256}, -1, 1, tj::f32);
  tj::eval({x, dy, gamma, beta});
  tj::Tensor dx = tj::grad(tj::layernorm(x, gamma, beta, 1e-5), {x}, dy)[0];
  INFO(plan_of({dx}));
  CHECK(plan_of({dx}).find("row") != std::string::npos);
}

TEST_CASE("autodiff: detach, unused inputs and the errors") {
  tj::Tensor x = tj::tensor<double>({3}, {1, 2, 3});
  tj::Tensor y = (x.detach() * x).sum();
  CHECK(tj::grad(y, {x})[0].to_vector<double>() == std::vector<double>{1, 2, 3});
  CHECK(tj::grad(y, {tj::ones({2})})[0].to_vector<float>() == std::vector<float>{0, 0});
  CHECK(x.detach().to_vector<double>() == std::vector<double>{1, 2, 3});
  CHECK_THROWS_WITH_AS(tj::grad(x * 2.0, {x}), doctest::Contains("grad: y f64[3] has more than one element"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::grad(y, {tj::arange(3)}), doctest::Contains("only floating tensors"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::grad(x * 2.0, {x}, tj::ones({2})), doctest::Contains("must have the shape of y"), tj::Error);
  y.eval();
  CHECK_THROWS_WITH_AS(tj::grad(y, {x}), doctest::Contains("already evaluated"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::cross_entropy(tj::ones({2, 3, 4}), tj::arange(2)), doctest::Contains("cross_entropy"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::cross_entropy(tj::ones({2, 3}), tj::arange(3)), doctest::Contains("one index per row"), tj::Error);
}
