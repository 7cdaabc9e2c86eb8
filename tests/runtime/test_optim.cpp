// The optimizers: 100 steps against torch.optim's formulas written out as scalar loops (and
// against PyTorch itself when bench/.venv has torch), a learning-rate schedule that compiles
// nothing after its first steps, value semantics of the updated parameters, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <random>
#include <set>

#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "peer_python.hpp"

namespace tj = tensorjit;

namespace {

// The problem every optimizer minimises: loss = sum(c * (p - t)^2), gradient 2 c (p - t).
struct Problem {
  std::vector<double> start, target, scale;
};

Problem make_problem(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1, 1), positive(0.1, 2);
  Problem p;
  for (std::size_t i = 0; i < n; ++i) {
    p.start.push_back(value(rng));
    p.target.push_back(value(rng));
    p.scale.push_back(positive(rng));
  }
  return p;
}

double lr_at(double base, int step) { return base * std::pow(0.97, step); }  // a schedule: a new lr each step

struct Settings {
  std::string name;
  double lr = 0.05, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
  int kind = 0;  // 0 SGD, 1 Adam, 2 AdamW
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
};

// torch.optim's single-tensor formulas, element by element in T.
template <typename T> std::vector<T> reference(const Settings& s, const Problem& problem, int steps) {
  const std::size_t n = problem.start.size();
  std::vector<T> p(problem.start.begin(), problem.start.end()), buffer(n), m(n), v(n);
  for (int t = 1; t <= steps; ++t) {
    const double lr = lr_at(s.lr, t - 1);
    for (std::size_t i = 0; i < n; ++i) {
      T g = T(problem.scale[i]) * ((p[i] - T(problem.target[i])) * T(2));
      if (s.kind == 0) {
        if (s.weight_decay != 0) g = g + p[i] * T(s.weight_decay);
        if (s.momentum != 0) {
          buffer[i] = t == 1 ? g : buffer[i] * T(s.momentum) + g * T(1 - s.dampening);
          g = s.nesterov ? g + buffer[i] * T(s.momentum) : buffer[i];
        }
        p[i] = p[i] + g * T(-lr);
        continue;
      }
      if (s.weight_decay != 0) {
        if (s.kind == 2) p[i] = p[i] * T(1 - lr * s.weight_decay);
        else g = g + p[i] * T(s.weight_decay);
      }
      const double weight = 1 - s.beta1;
      m[i] = weight < 0.5 ? m[i] + (g - m[i]) * T(weight) : g - (g - m[i]) * T(1 - weight);
      v[i] = v[i] * T(s.beta2) + (g * g) * T(1 - s.beta2);
      const double step_size = lr / (1 - std::pow(s.beta1, t));
      const double correction2_sqrt = std::sqrt(1 - std::pow(s.beta2, t));
      const T denominator = std::sqrt(v[i]) / T(correction2_sqrt) + T(s.eps);
      p[i] = p[i] + m[i] * T(-step_size) / denominator;
    }
  }
  return p;
}

std::unique_ptr<tj::optim::Optimizer> make_optimizer(const Settings& s, tj::Tensor* p) {
  if (s.kind == 0)
    return std::make_unique<tj::optim::SGD>(tj::optim::Parameters{p},
                                            tj::optim::SGDOptions{s.lr, s.momentum, s.dampening, s.weight_decay, s.nesterov});
  if (s.kind == 1)
    return std::make_unique<tj::optim::Adam>(tj::optim::Parameters{p},
                                             tj::optim::AdamOptions{s.lr, s.beta1, s.beta2, s.eps, s.weight_decay});
  return std::make_unique<tj::optim::AdamW>(tj::optim::Parameters{p},
                                            tj::optim::AdamWOptions{s.lr, s.beta1, s.beta2, s.eps, s.weight_decay});
}

// 100 steps of `s` on the problem, the learning rate set before each; the parameter after each.
template <typename T> std::vector<T> train(const Settings& s, const Problem& problem, int steps) {
  const tj::DType dtype = tj::dtype_of<T>();
  const auto n = static_cast<std::int64_t>(problem.start.size());
  tj::Tensor p = tj::tensor<double>({n}, problem.start).astype(dtype);
  const tj::Tensor target = tj::tensor<double>({n}, problem.target).astype(dtype);
  const tj::Tensor scale = tj::tensor<double>({n}, problem.scale).astype(dtype);
  p.eval();
  auto optimizer = make_optimizer(s, &p);
  for (int t = 0; t < steps; ++t) {
    optimizer->set_lr(lr_at(s.lr, t));
    tj::Tensor difference = p - target;
    tj::Tensor loss = (scale * (difference * difference)).sum();
    optimizer->step(tj::grad(loss, {p}));
  }
  return p.to_vector<T>();
}

const std::vector<Settings> kSettings = {
    {"sgd", 0.05},
    {"sgd momentum dampening weight decay", 0.05, 0.9, 0.1, 0.01},
    {"sgd nesterov", 0.05, 0.9, 0, 0.01, true},
    {"adam", 0.05, 0, 0, 0, false, 1},
    {"adam weight decay, beta1 below 0.5", 0.05, 0, 0, 0.05, false, 1, 0.3, 0.99},
    {"adamw", 0.05, 0, 0, 0.05, false, 2},
};

template <typename T> void check_close(const std::vector<T>& actual, const std::vector<T>& expected, double tolerance) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(double(actual[i]) - double(expected[i])) <= tolerance * std::max(1.0, std::abs(double(expected[i]))));
  }
}

}  // namespace

TEST_CASE("optim: 100 steps follow torch.optim's formulas, in f32 and f64") {
  const Problem problem = make_problem(7, 37);
  for (const auto& s : kSettings) {
    CAPTURE(s.name);
    check_close(train<double>(s, problem, 100), reference<double>(s, problem, 100), 1e-12);
    check_close(train<float>(s, problem, 100), reference<float>(s, problem, 100), 1e-6);
  }
}

TEST_CASE("optim loops: a learning-rate schedule compiles nothing after the first steps") {
  const Problem problem = make_problem(8, 1000);
  for (const auto& s : kSettings) {
    CAPTURE(s.name);
    tj::Tensor p = tj::tensor<double>({1000}, problem.start).astype(tj::f32);
    const tj::Tensor target = tj::tensor<double>({1000}, problem.target).astype(tj::f32);
    auto optimizer = make_optimizer(s, &p);
    std::uint64_t compiles = 0;
    for (int t = 0; t < 12; ++t) {
      if (t == 3) compiles = tj::jit_statistics().compiles;
      optimizer->set_lr(lr_at(s.lr, t) * (t % 2 ? 0.5 : 1));  // powers of two included
      optimizer->step(tj::grad(tj::mse_loss(p, target), {p}));
    }
    CHECK(tj::jit_statistics().compiles == compiles);
    CHECK(optimizer->steps() == 12);
  }
}

TEST_CASE("optim: after its first steps a step allocates no buffer for its parameters and state") {
  const Problem problem = make_problem(10, 1000);
  for (const auto& s : kSettings) {
    CAPTURE(s.name);
    tj::Tensor p = tj::tensor<double>({1000}, problem.start).astype(tj::f32);
    const tj::Tensor target = tj::tensor<double>({1000}, problem.target).astype(tj::f32);
    tj::eval({p, target});
    auto optimizer = make_optimizer(s, &p);
    std::set<const void*> buffers;
    for (int t = 0; t < 12; ++t) {
      optimizer->set_lr(lr_at(s.lr, t));
      // The gradient first, so that what the step itself allocates is measured alone.
      const std::vector<tj::Tensor> grads = tj::grad(tj::mse_loss(p, target), {p});
      tj::eval(grads);
      const tj::MemoryStatistics before = tj::memory_statistics();
      {
        // A copy of p's handle alive during the step (as grad's argument list is in
        // `opt.step(tj::grad(loss, {p}))`) keeps the step from writing p's buffer: it writes the
        // buffer p held before the previous step.
        const tj::Tensor held = p;
        optimizer->step(grads);
      }
      const tj::MemoryStatistics after = tj::memory_statistics();
      if (t < 3) continue;
      // Only the 0-d arguments that change each step: the learning rate (SGD) or the step size,
      // the second bias correction and AdamW's decay (each a float).
      CHECK(after.allocated_bytes - before.allocated_bytes <= 12);
      CHECK(after.allocations - before.allocations <= 3);
      buffers.insert(p.data());
    }
    CHECK(buffers.size() <= 2);
  }
}

TEST_CASE("optim: a step writes in place when nothing else holds a parameter") {
  const Problem problem = make_problem(11, 1000);
  for (const auto& s : kSettings) {
    CAPTURE(s.name);
    tj::Tensor p = tj::tensor<double>({1000}, problem.start).astype(tj::f32);
    const tj::Tensor target = tj::tensor<double>({1000}, problem.target).astype(tj::f32);
    tj::eval({p, target});
    auto optimizer = make_optimizer(s, &p);
    std::vector<tj::Tensor> grads;
    for (int t = 0; t < 6; ++t) {
      grads = tj::grad(tj::mse_loss(p, target), {p});
      tj::eval(grads);
      const void* buffer = p.data();
      optimizer->step(grads);
      if (t >= 1) CHECK(p.data() == buffer);
    }
    // The values are those of the rebinding path: a copy of the handle taken each step makes
    // every step write a new buffer.
    tj::Tensor q = tj::tensor<double>({1000}, problem.start).astype(tj::f32);
    q.eval();
    auto other = make_optimizer(s, &q);
    for (int t = 0; t < 6; ++t) {
      const tj::Tensor copy = q;
      other->step(tj::grad(tj::mse_loss(q, target), {q}));
    }
    CHECK(p.to_vector<float>() == q.to_vector<float>());
  }
}

TEST_CASE("optim: a step keeps value semantics, and checks its arguments") {
  tj::Tensor p = tj::tensor<float>({3}, {1, 2, 3});
  tj::Tensor before = p;
  tj::optim::SGD sgd({&p}, {.lr = 0.5});
  sgd.step({tj::ones({3})});
  CHECK(p.to_vector<float>() == std::vector<float>{0.5f, 1.5f, 2.5f});
  CHECK(before.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK_THROWS_WITH_AS(sgd.step({tj::ones({4})}), doctest::Contains("does not match parameter"), tj::Error);
  CHECK_THROWS_WITH_AS(sgd.step({}), doctest::Contains("0 gradients for 1 parameters"), tj::Error);
  CHECK_THROWS_WITH_AS(sgd.set_lr(-1), doctest::Contains("learning rate"), tj::Error);
  tj::Tensor integer = tj::arange(3);
  CHECK_THROWS_WITH_AS(tj::optim::Adam({&integer}), doctest::Contains("only floating tensors train"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::optim::SGD({&p}, {.nesterov = true}), doctest::Contains("Nesterov"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::optim::Adam({&p}, {.beta1 = 1}), doctest::Contains("betas"), tj::Error);
}

TEST_CASE("optim: PyTorch's optimizers give the same parameters after 100 steps") {
  if (!peer_python::imports("numpy, torch")) {
    MESSAGE("SKIPPED: " << peer_python::path() << " cannot import numpy and torch, so the PyTorch optimizer checks did not run");
    return;
  }
  const Problem problem = make_problem(9, 64);
  file_test::TempFolder folder;
  tj::save_npy(folder / "start.npy", tj::tensor<double>({64}, problem.start));
  tj::save_npy(folder / "target.npy", tj::tensor<double>({64}, problem.target));
  tj::save_npy(folder / "scale.npy", tj::tensor<double>({64}, problem.scale));
  std::ostringstream settings;
  settings << std::setprecision(17);
  for (const auto& s : kSettings) {
    settings << "    (" << s.kind << ", " << s.lr << ", " << s.momentum << ", " << s.dampening << ", "
             << s.weight_decay << ", " << (s.nesterov ? "True" : "False") << ", " << s.beta1 << ", " << s.beta2
             << ", " << s.eps << "),\n";
  }
  file_test::write_bytes(folder / "peers.py", R"(
import numpy as np, torch
start, target, scale = np.load('start.npy'), np.load('target.npy'), np.load('scale.npy')
settings = [
)" + settings.str() + R"(]
for index, (kind, lr, momentum, dampening, wd, nesterov, beta1, beta2, eps) in enumerate(settings):
    for dtype in (torch.float32, torch.float64):
        p = torch.tensor(start, dtype=dtype, requires_grad=True)
        t, c = torch.tensor(target, dtype=dtype), torch.tensor(scale, dtype=dtype)
        if kind == 0:
            opt = torch.optim.SGD([p], lr=lr, momentum=momentum, dampening=dampening, weight_decay=wd,
                                  nesterov=nesterov, foreach=False)
        elif kind == 1:
            opt = torch.optim.Adam([p], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=wd, foreach=False)
        else:
            opt = torch.optim.AdamW([p], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=wd, foreach=False)
        for step in range(100):
            for group in opt.param_groups:
                group['lr'] = lr * 0.97 ** step
            opt.zero_grad()
            (c * (p - t) ** 2).sum().backward()
            opt.step()
        np.save(f'p{index}_{str(dtype)[-2:]}.npy', p.detach().numpy())
)");
  const int status = peer_python::run(folder.path(), "peers.py");
  INFO("python said:\n" << file_test::read_bytes(folder / "log.txt"));
  REQUIRE(status == 0);
  for (std::size_t index = 0; index < kSettings.size(); ++index) {
    CAPTURE(kSettings[index].name);
    check_close(train<float>(kSettings[index], problem, 100),
                tj::load_npy(folder / ("p" + std::to_string(index) + "_32.npy")).to_vector<float>(), 1e-6);
    check_close(train<double>(kSettings[index], problem, 100),
                tj::load_npy(folder / ("p" + std::to_string(index) + "_64.npy")).to_vector<double>(), 1e-6);
  }
}
