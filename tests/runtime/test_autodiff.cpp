// tj::grad through the public API: the layers and losses against central differences in f64 (run
// by the JIT), the JIT's gradients against the interpreter's bits, the plans the backward passes
// fuse into, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "jit_oracle.hpp"
#include "peer_python.hpp"
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

TEST_CASE("autodiff JIT: the backward passes of softmax with cross-entropy and of layernorm are row kernels") {
  std::mt19937_64 rng(4);
  auto plan_of = [](const std::vector<tj::Tensor>& ts) {
    std::vector<tensorjit::ir::NodePtr> nodes;
    for (const auto& t : ts) nodes.push_back(tj::detail::node_of(t, "test"));
    return tensorjit::ir::print_plan(tensorjit::ir::plan_graph(tj::detail::graph_for(nodes)));
  };
  tj::Tensor logits = random_tensor(rng, {64, 10}, -1, 1, tj::f32);
  tj::Tensor labels = tj::tensor<std::int64_t>({64}, std::vector<std::int64_t>(64, 3));
  tj::eval({logits, labels});
  // The forward's max and sum of exp and the backward's row sum are phases of one row step; only
  // the one-hot of the labels (it reads only inputs, before the row step's first reduction) is
  // a loop step of its own.
  tj::Tensor d_logits = tj::grad(tj::cross_entropy(logits, labels), {logits})[0];
  const std::string ce_plan = plan_of({d_logits});
  INFO(ce_plan);
  CHECK(ce_plan.find(": row") != std::string::npos);
  CHECK(ce_plan.find(": reduce") == std::string::npos);
  CHECK(ce_plan.find("step 2") == std::string::npos);

  tj::Tensor x = random_tensor(rng, {64, 256}, -1, 1, tj::f32), dy = random_tensor(rng, {64, 256}, -1, 1, tj::f32);
  tj::Tensor gamma = random_tensor(rng, {256}, -1, 1, tj::f32), beta = random_tensor(rng, {256}, -1, 1, tj::f32);
  tj::eval({x, dy, gamma, beta});
  // dy * gamma reads only inputs: the row step computes it, rather than a loop step before it.
  tj::Tensor dx = tj::grad(tj::layernorm(x, gamma, beta, 1e-5), {x}, dy)[0];
  const std::string dx_plan = plan_of({dx});
  INFO(dx_plan);
  CHECK(dx_plan.find("step 0: row") != std::string::npos);
  CHECK(dx_plan.find("step 1") == std::string::npos);
  // dgamma and dbeta are column sums: separate reduce steps, after the row step that writes dx
  // (nothing of dx's computation is left for a loop step after them).
  std::vector<tj::Tensor> all = tj::grad(tj::layernorm(x, gamma, beta, 1e-5), {x, gamma, beta}, dy);
  const std::string all_plan = plan_of(all);
  INFO(all_plan);
  CHECK(all_plan.find(": loop") == std::string::npos);
  tensorjit::testing::check_against_interpreter(tj::detail::graph_for(
      {tj::detail::node_of(all[0], "test"), tj::detail::node_of(all[1], "test"), tj::detail::node_of(all[2], "test")}));
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

TEST_CASE("autodiff: std's gradient is 0 where the variance is 0, as PyTorch's") {
  // sqrt's own adjoint would be g / (2 * 0) times a zero deviation: NaN. The oracle's gradient
  // programs found it (tests/oracle, check_grad.py); torch.std's backward masks it to 0.
  tj::Tensor x = tj::tensor<double>({2, 3}, {2, 2, 2, 1, 2, 4});
  const std::vector<double> g = tj::grad(x.std({1}, false, 1).sum(), {x})[0].to_vector<double>();
  for (int i = 0; i < 3; ++i) CHECK(g[static_cast<std::size_t>(i)] == 0);
  const double s = std::sqrt(7.0 / 3);  // the second row: mean 7/3, centred squares 14/3, / 2
  CHECK(g[3] == doctest::Approx((1 - 7.0 / 3) / (2 * s)).epsilon(1e-14));
  CHECK(g[5] == doctest::Approx((4 - 7.0 / 3) / (2 * s)).epsilon(1e-14));
  tj::Tensor f = tj::tensor<float>({1}, {3.5f});
  CHECK(tj::grad(f.std().sum(), {f})[0].to_vector<float>() == std::vector<float>{0});
  CHECK(tj::tensor<double>({3}, {1, 1, 1}).std().item<double>() == 0);
}

namespace {

// The functions both sides differentiate: each of x [6, 5], w [5, 4], v [4], labels [6]; the
// gradients with respect to x, w and v. Python spells the same in peers.py below.
std::vector<std::pair<std::string, std::function<tj::Tensor(const tj::Tensor&, const tj::Tensor&, const tj::Tensor&,
                                                            const tj::Tensor&)>>>
peer_functions() {
  return {
      {"mlp", [](auto x, auto w, auto v, auto labels) { return tj::cross_entropy(tj::relu(tj::matmul(x, w)) * v + v, labels); }},
      {"layernorm", [](auto x, auto w, auto v, auto) {
         return (tj::layernorm(tj::matmul(x, w), v, v * 0.5, 1e-5) * tj::arange(24, tj::f64).reshape({6, 4}).astype(x.dtype())).sum(); }},
      {"softmax", [](auto x, auto w, auto v, auto) {
         return (tj::softmax(tj::matmul(x, w), -1) * v).sum() + tj::log_softmax(x, 0).mean(); }},
      {"activations", [](auto x, auto w, auto v, auto) {
         tj::Tensor h = tj::matmul(x, w);
         return (tj::gelu(h) + tj::gelu_tanh(h) * v + tj::silu(h) + tj::tanh(h) + tj::sigmoid(h) * v + tj::softplus(h) +
                 tj::sqrt(tj::abs(h) + 1.0) + tj::log(h * h + 1.0) + tj::exp(h * 0.25) + tj::sin(h) * tj::cos(v) + tj::erf(h))
             .sum(); }},
      {"broadcast", [](auto x, auto w, auto v, auto) {
         return tj::mse_loss(tj::matmul(x, w), v) + (x.transpose().slice(0, 1, 5, 2).max({1}) * v.slice(0, 0, 2)).sum(); }},
  };
}

}  // namespace

TEST_CASE("autodiff: PyTorch's autograd gives the same gradients") {
  if (!peer_python::imports("numpy, torch")) {
    MESSAGE("SKIPPED: " << peer_python::path() << " cannot import numpy and torch, so the PyTorch gradient checks did not run");
    return;
  }
  std::mt19937_64 rng(11);
  file_test::TempFolder folder;
  const tj::Tensor x = random_tensor(rng, {6, 5}), w = random_tensor(rng, {5, 4}), v = random_tensor(rng, {4});
  const tj::Tensor labels = tj::tensor<std::int64_t>({6}, {0, 3, 1, 2, 3, 0});
  tj::save_npy(folder / "x.npy", x);
  tj::save_npy(folder / "w.npy", w);
  tj::save_npy(folder / "v.npy", v);
  tj::save_npy(folder / "labels.npy", labels);
  file_test::write_bytes(folder / "peers.py", R"(
import numpy as np, torch
F = torch.nn.functional
x0, w0, v0, labels = (torch.from_numpy(np.load(f + '.npy')) for f in ('x', 'w', 'v', 'labels'))
functions = {
    'mlp': lambda x, w, v: F.cross_entropy(torch.relu(x @ w) * v + v, labels),
    'layernorm': lambda x, w, v: (F.layer_norm(x @ w, (4,), v, v * 0.5, 1e-5)
                                  * torch.arange(24, dtype=torch.float64).reshape(6, 4).to(x.dtype)).sum(),
    'softmax': lambda x, w, v: (torch.softmax(x @ w, -1) * v).sum() + torch.log_softmax(x, 0).mean(),
    'activations': lambda x, w, v: (lambda h: (F.gelu(h) + F.gelu(h, approximate='tanh') * v + F.silu(h) + torch.tanh(h)
        + torch.sigmoid(h) * v + F.softplus(h) + torch.sqrt(h.abs() + 1) + torch.log(h * h + 1) + torch.exp(h * 0.25)
        + torch.sin(h) * torch.cos(v) + torch.erf(h)).sum())(x @ w),
    'broadcast': lambda x, w, v: F.mse_loss(x @ w, v.expand(6, 4)) + (x.T[1:5:2].amax(1) * v[0:2]).sum(),
}
for name, f in functions.items():
    for dtype in (torch.float32, torch.float64):
        leaves = [t.to(dtype).requires_grad_() for t in (x0, w0, v0)]
        for leaf, g in zip('xwv', torch.autograd.grad(f(*leaves), leaves)):
            np.save(f'{name}_{leaf}_{str(dtype)[-2:]}.npy', g.numpy())
)");
  const int status = peer_python::run(folder.path(), "peers.py");
  INFO("python said:\n" << file_test::read_bytes(folder / "log.txt"));
  REQUIRE(status == 0);
  for (const auto& [name, f] : peer_functions()) {
    for (tj::DType dtype : {tj::f32, tj::f64}) {
      CAPTURE(name);
      CAPTURE(tj::dtype_name(dtype));
      const std::vector<tj::Tensor> leaves = {x.astype(dtype), w.astype(dtype), v.astype(dtype)};
      const std::vector<tj::Tensor> ours = tj::grad(f(leaves[0], leaves[1], leaves[2], labels), leaves);
      const double tolerance = dtype == tj::f32 ? 1e-5 : 1e-12;
      for (std::size_t i = 0; i < 3; ++i) {
        const std::string file = name + "_" + "xwv"[i] + "_" + (dtype == tj::f32 ? "32" : "64") + ".npy";
        const std::vector<double> expected = tj::load_npy(folder / file).astype(tj::f64).to_vector<double>();
        const std::vector<double> actual = ours[i].astype(tj::f64).to_vector<double>();
        REQUIRE(actual.size() == expected.size());
        double scale = 0;
        for (double e : expected) scale = std::max(scale, std::abs(e));
        for (std::size_t j = 0; j < actual.size(); ++j) {
          CAPTURE(file);
          CAPTURE(j);
          CHECK(std::abs(actual[j] - expected[j]) <= tolerance * std::max(scale, 1e-30));
        }
      }
    }
  }
}
