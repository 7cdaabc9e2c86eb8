// W17: a 784-128-10 MLP trained with hand-written gradients and Adam, written two ways.
//
//   naive:    as a new user writes it: a learning rate that decays each step and Adam's bias
//             corrections as C++ floats, and nothing evaluated but `loss.item()` each step (the
//             parameters and Adam's moments stay lazy from one step to the next);
//   explicit: the workaround a user had to know: every changing scalar a 0-d tensor, and
//             tj::eval of every parameter and moment each step.
//
// Both run in one process, each from its own fresh start, and print one JSON line: the kernels
// the first (cold) run of each compiled after its step 3, then from a second run of each, their
// kernels all cached, the median step time around steps 10 and 100 and the whole run's time; and
// whether the losses of the two ways are the same bits.
//
// With `naive` as a third argument it runs only the naive loop, once: the driver reads that
// process's peak memory at two step counts (bench/driver/training.py).
//
//   w17_naive_loop [steps, default 250] [batch, default 64] [naive]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

constexpr std::int64_t kIn = 784, kHidden = 128, kClasses = 10;

tj::Tensor random_tensor(std::mt19937& rng, tj::Shape shape, float scale) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (auto& v : values) v = normal(rng);
  return tj::tensor<float>(shape, values);
}

struct Data {
  tj::Tensor x;       // [batch, 784]
  tj::Tensor labels;  // [batch, 10], one-hot
};

Data make_data(std::int64_t batch) {
  std::mt19937 rng(7);
  Data data{random_tensor(rng, {batch, kIn}, 1.0f), {}};
  std::vector<float> onehot(static_cast<std::size_t>(batch * kClasses), 0.0f);
  for (std::int64_t i = 0; i < batch; ++i) onehot[static_cast<std::size_t>(i * kClasses + i % kClasses)] = 1.0f;
  data.labels = tj::tensor<float>({batch, kClasses}, onehot);
  return data;
}

struct Model {
  std::vector<tj::Tensor> params, m, v;  // W1, b1, W2, b2
};

Model make_model() {
  std::mt19937 rng(11);
  Model model;
  model.params = {random_tensor(rng, {kIn, kHidden}, 0.05f), tj::zeros({kHidden}),
                  random_tensor(rng, {kHidden, kClasses}, 0.1f), tj::zeros({kClasses})};
  for (const auto& p : model.params) {
    model.m.push_back(tj::zeros(p.shape()));
    model.v.push_back(tj::zeros(p.shape()));
  }
  return model;
}

// The loss and the gradients of softmax cross-entropy, written out by hand.
struct Pass {
  tj::Tensor loss;
  std::vector<tj::Tensor> grads;
};

Pass forward_backward(const Model& model, const Data& data) {
  const tj::Tensor& w1 = model.params[0];
  const tj::Tensor& b1 = model.params[1];
  const tj::Tensor& w2 = model.params[2];
  const tj::Tensor& b2 = model.params[3];
  const float batch = static_cast<float>(data.x.shape()[0]);
  tj::Tensor pre = tj::matmul(data.x, w1) + b1;
  tj::Tensor h = tj::relu(pre);
  tj::Tensor logits = tj::matmul(h, w2) + b2;
  tj::Tensor shifted = logits - logits.max({1}, true);
  tj::Tensor log_sum = tj::log(tj::exp(shifted).sum({1}, true));
  tj::Tensor loss = ((log_sum - shifted) * data.labels).sum() / batch;
  tj::Tensor dlogits = (tj::softmax(logits, 1) - data.labels) / batch;
  tj::Tensor dh = tj::matmul(dlogits, w2.transpose()) * (pre > 0.0f).astype(tj::f32);
  return {loss, {tj::matmul(data.x.transpose(), dh), dh.sum({0}), tj::matmul(h.transpose(), dlogits), dlogits.sum({0})}};
}

constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEps = 1e-8f;

struct Run {
  std::vector<float> losses;
  std::vector<double> step_ms;
  std::uint64_t compiles_after_step3 = 0;
  double total_ms = 0;
};

template <bool naive>
Run train(int steps, const Data& data) {
  Model model = make_model();
  Run run;
  std::uint64_t compiles_at_step3 = 0;
  const auto begin = std::chrono::steady_clock::now();
  for (int step = 1; step <= steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    const float lr = 1e-3f / (1.0f + 0.01f * static_cast<float>(step));
    const float bc1 = 1.0f - std::pow(kBeta1, static_cast<float>(step));
    const float bc2 = 1.0f - std::pow(kBeta2, static_cast<float>(step));
    Pass pass = forward_backward(model, data);
    run.losses.push_back(pass.loss.item<float>());
    for (std::size_t k = 0; k < model.params.size(); ++k) {
      const tj::Tensor& g = pass.grads[k];
      model.m[k] = kBeta1 * model.m[k] + (1.0f - kBeta1) * g;
      model.v[k] = kBeta2 * model.v[k] + (1.0f - kBeta2) * g * g;
      if constexpr (naive) {
        model.params[k] = model.params[k] - (lr / bc1) * model.m[k] / (tj::sqrt(model.v[k] / bc2) + kEps);
      } else {
        const tj::Tensor step_size = tj::tensor<float>(tj::Shape{}, {lr / bc1});
        const tj::Tensor correction = tj::tensor<float>(tj::Shape{}, {bc2});
        model.params[k] = model.params[k] - step_size * model.m[k] / (tj::sqrt(model.v[k] / correction) + kEps);
      }
    }
    if constexpr (!naive) {
      std::vector<tj::Tensor> all = model.params;
      all.insert(all.end(), model.m.begin(), model.m.end());
      all.insert(all.end(), model.v.begin(), model.v.end());
      tj::eval(all);
    }
    run.step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (step == 3) compiles_at_step3 = tj::jit_statistics().compiles;
  }
  run.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  run.compiles_after_step3 = tj::jit_statistics().compiles - compiles_at_step3;
  return run;
}

// The median step time over the steps [center - 5, center + 5) (1-based), or NaN past the run.
double median_around(const std::vector<double>& step_ms, int center) {
  if (center + 5 > static_cast<int>(step_ms.size())) return NAN;
  std::vector<double> window(step_ms.begin() + center - 6, step_ms.begin() + center + 4);
  std::sort(window.begin(), window.end());
  return window[window.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 250;
  const std::int64_t batch = argc > 2 ? std::atoll(argv[2]) : 64;
  if (steps < 110 || batch < 1) {
    std::fprintf(stderr, "usage: w17_naive_loop [steps >= 110] [batch >= 1] [naive]\n");
    return 2;
  }
  const Data data = make_data(batch);
  if (argc > 3 && std::string_view(argv[3]) == "naive") {
    const Run run = train<true>(steps, data);
    std::printf("{\"steps\": %d, \"batch\": %lld, \"compiles_after_step3\": %llu, \"total_ms\": %.2f, "
                "\"last_loss\": %.9g}\n", steps, static_cast<long long>(batch),
                static_cast<unsigned long long>(run.compiles_after_step3), run.total_ms, run.losses.back());
    return 0;
  }
  const Run naive_cold = train<true>(steps, data);
  const Run explicit_cold = train<false>(steps, data);
  Run naive = train<true>(steps, data);
  Run explicit_run = train<false>(steps, data);
  naive.compiles_after_step3 = naive_cold.compiles_after_step3;
  explicit_run.compiles_after_step3 = explicit_cold.compiles_after_step3;
  const bool same_losses = naive.losses == explicit_run.losses;
  auto print_run = [&](const char* name, const Run& run) {
    std::printf("\"%s\": {\"compiles_after_step3\": %llu, \"step10_ms\": %.4f, \"step100_ms\": %.4f, "
                "\"total_ms\": %.2f, \"last_loss\": %.9g}",
                name, static_cast<unsigned long long>(run.compiles_after_step3), median_around(run.step_ms, 10),
                median_around(run.step_ms, 100), run.total_ms, run.losses.back());
  };
  std::printf("{\"steps\": %d, \"batch\": %lld, ", steps, static_cast<long long>(batch));
  print_run("naive", naive);
  std::printf(", ");
  print_run("explicit", explicit_run);
  std::printf(", \"naive_over_explicit\": %.3f, \"same_losses\": %s}\n", naive.total_ms / explicit_run.total_ms,
              same_losses ? "true" : "false");
  return same_losses ? 0 : 1;
}
