// tensorjit as a benchmark peer: every workload of bench/README.md written with the public API, as a
// user would write it. Each timed call builds the lazy expression on the same inputs and evaluates
// it, so graph building, planning, the kernel cache lookup and the output allocation are all timed.
//
//   tensorjit_worker   (then the line protocol of worker_loop.hpp on stdin/stdout)
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <tensorjit/tensorjit.hpp>

#include "bench_inputs.hpp"
#include "minilm_case.hpp"
#include "worker_loop.hpp"

namespace tj = tensorjit;

namespace {

// An input over memory the tensor itself keeps alive: from_blob's owner callback holds the vector.
template <class T>
tj::Tensor input(std::uint64_t stream, const tj::Shape& shape, bool positive = false) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  auto values = std::make_shared<std::vector<T>>(bench::make_input<T>(stream, count, positive));
  return tj::from_blob(values->data(), shape, {}, tj::dtype_of<T>(), [values] {});
}

template <class T>
void write_tensor(const tj::Tensor& tensor, std::FILE* file) {
  const std::vector<T> values = tensor.to_vector<T>();
  std::fwrite(values.data(), sizeof(T), values.size(), file);
}

// The case's output tensors, computed afresh by each run; the last run's first `checked` are
// written for the check (the others are computed as a peer computes them, not compared).
template <class T>
bench::PreparedCase make_case(std::function<std::vector<tj::Tensor>()> build, std::size_t checked = SIZE_MAX) {
  auto last = std::make_shared<std::vector<tj::Tensor>>();
  bench::PreparedCase prepared;
  prepared.run = [build, last] {
    *last = build();
    tj::eval(*last);
  };
  prepared.write_outputs = [last, checked](std::FILE* file) {
    for (std::size_t i = 0; i < last->size() && i < checked; ++i) write_tensor<T>((*last)[i], file);
  };
  return prepared;
}

// Adam, PyTorch's formula without amsgrad or weight decay, at step 10 (bench/README.md).
std::vector<tj::Tensor> adam_step(const tj::Tensor& p, const tj::Tensor& g, const tj::Tensor& m,
                                  const tj::Tensor& v) {
  const double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, step = 10;
  const double correction1 = 1 - std::pow(beta1, step), correction2 = 1 - std::pow(beta2, step);
  tj::Tensor m1 = m + (g - m) * (1 - beta1);
  tj::Tensor v1 = v * beta2 + g * g * (1 - beta2);
  tj::Tensor denominator = tj::sqrt(v1) / std::sqrt(correction2) + eps;
  tj::Tensor p1 = p - (m1 / denominator) * (lr / correction1);
  return {p1, m1, v1};
}

// One training step of the MLP relu(x @ w1 + b1) @ w2 + b2 with cross-entropy and Adam (lr 1e-3),
// as a training loop writes it; each call is the next step. The labels are (input + 1) * 5 cut to
// an integer, as python_peers.py makes them. The outputs are the step's loss and parameters.
template <class T>
bench::PreparedCase training_step(const std::vector<std::int64_t>& d) {
  struct State {
    tj::Tensor x, labels, w1, b1, w2, b2, loss;
    std::unique_ptr<tj::optim::Adam> optimizer;
  };
  auto state = std::make_shared<State>();
  state->x = input<T>(1, {d[0], d[1]});
  state->labels = ((input<T>(6, {d[0]}) + 1) * 5).astype(tj::i64);
  // The parameters at nn.Linear's initial scale, uniform in ±1/sqrt(fan_in) (bench/README.md).
  const T first = T(1 / std::sqrt(double(d[1]))), second = T(1 / std::sqrt(double(d[2])));
  state->w1 = (input<T>(2, {d[1], d[2]}) * first).copy();
  state->b1 = (input<T>(3, {d[2]}) * first).copy();
  state->w2 = (input<T>(4, {d[2], d[3]}) * second).copy();
  state->b2 = (input<T>(5, {d[3]}) * second).copy();
  tj::eval({state->labels, state->w1, state->b1, state->w2, state->b2});
  state->optimizer = std::make_unique<tj::optim::Adam>(
      tj::optim::Parameters{&state->w1, &state->b1, &state->w2, &state->b2}, tj::optim::AdamOptions{.lr = 1e-3});
  bench::PreparedCase prepared;
  prepared.run = [state] {
    State& s = *state;
    s.loss = tj::cross_entropy(tj::matmul(tj::relu(tj::matmul(s.x, s.w1) + s.b1), s.w2) + s.b2, s.labels);
    s.optimizer->step(tj::grad(s.loss, {s.w1, s.b1, s.w2, s.b2}), {s.loss});
  };
  prepared.write_outputs = [state](std::FILE* file) {
    for (const auto* t : {&state->loss, &state->w1, &state->b1, &state->w2, &state->b2}) write_tensor<T>(*t, file);
  };
  return prepared;
}

template <class T>
std::optional<bench::PreparedCase> prepare_typed(const bench::CaseRequest& request, std::string& why) {
  const std::string& w = request.workload;
  const auto& d = request.dims;
  using Outputs = std::vector<tj::Tensor>;
  if (w == "W1" || w == "W11") {
    auto a = input<T>(1, {d[0]}), b = input<T>(2, {d[0]}), c = input<T>(3, {d[0]});
    if (w == "W11") return make_case<T>([=] { return Outputs{a * b + c}; });
    return make_case<T>([=] { return Outputs{tj::maximum(a * b + c, 0.0f) * 0.5f}; });
  }
  if (w == "W2") {
    auto x = input<T>(1, {d[0]});
    return make_case<T>([=] { return Outputs{tj::tanh(x) * tj::sigmoid(x) + tj::exp(-x * x)}; });
  }
  if (w == "W3a") {  // a + b[None, :] * c[:, None]
    auto a = input<T>(1, {d[0], d[1]}), b = input<T>(2, {d[1]}), c = input<T>(3, {d[0]});
    return make_case<T>([=] { return Outputs{a + b.unsqueeze(0) * c.unsqueeze(1)}; });
  }
  if (w == "W3b") {  // a + b.T
    auto a = input<T>(1, {d[0], d[1]}), b = input<T>(2, {d[1], d[0]});
    return make_case<T>([=] { return Outputs{a + b.transpose()}; });
  }
  if (w == "W4sum") {
    auto x = input<T>(1, {d[0]});
    return make_case<T>([=] { return Outputs{x.sum()}; });
  }
  if (w == "W4sum0" || w == "W4sum1" || w == "W4max") {
    auto x = input<T>(1, {d[0], d[1]});
    if (w == "W4max") return make_case<T>([=] { return Outputs{x.max()}; });
    const std::int64_t axis = w == "W4sum0" ? 0 : 1;
    return make_case<T>([=] { return Outputs{x.sum({axis})}; });
  }
  if (w == "W5") {
    auto x = input<T>(1, {d[0], d[1]});
    return make_case<T>([=] { return Outputs{tj::softmax(x, -1)}; });
  }
  if (w == "W6") {
    auto x = input<T>(1, {d[0], d[1]}), gamma = input<T>(2, {d[1]}), beta = input<T>(3, {d[1]});
    return make_case<T>([=] { return Outputs{tj::layernorm(x, gamma, beta, 1e-5)}; });
  }
  if (w == "W7") {  // m k n
    auto a = input<T>(1, {d[0], d[1]}), b = input<T>(2, {d[1], d[2]});
    return make_case<T>([=] { return Outputs{tj::matmul(a, b)}; });
  }
  if (w == "W8dense") {  // batch, in, out
    auto x = input<T>(1, {d[0], d[1]}), weights = input<T>(2, {d[1], d[2]}), bias = input<T>(3, {d[2]});
    return make_case<T>([=] { return Outputs{tj::relu(tj::matmul(x, weights) + bias)}; });
  }
  if (w == "W8mlp") {  // batch, in, hidden, out
    auto x = input<T>(1, {d[0], d[1]}), w1 = input<T>(2, {d[1], d[2]}), b1 = input<T>(3, {d[2]});
    auto w2 = input<T>(4, {d[2], d[3]}), b2 = input<T>(5, {d[3]});
    return make_case<T>([=] { return Outputs{tj::matmul(tj::relu(tj::matmul(x, w1) + b1), w2) + b2}; });
  }
  if (w == "W13uniform" || w == "W13normal" || w == "W13dropout" || w == "W13scale") {
    // A new key for every call, as a training loop draws: the key is a kernel argument.
    auto step = std::make_shared<std::uint64_t>(0);
    auto x = input<T>(1, {d[0]});
    if (w == "W13scale") return make_case<T>([=] { return Outputs{x * 2.0f}; });
    if (w == "W13dropout") return make_case<T>([=] { return Outputs{x * (tj::uniform(tj::key(++*step), {d[0]}) > 0.1f)}; });
    if (w == "W13normal") return make_case<T>([=] { return Outputs{tj::normal(tj::key(++*step), {d[0]})}; });
    return make_case<T>([=] { return Outputs{tj::uniform(tj::key(++*step), {d[0]})}; });
  }
  if (w == "W9") {
    auto p = input<T>(1, {d[0]}), g = input<T>(2, {d[0]}), m = input<T>(3, {d[0]});
    auto v = input<T>(4, {d[0]}, /*positive=*/true);
    return make_case<T>([=] { return adam_step(p, g, m, v); });
  }
  if (w == "W15step") {  // batch, in, hidden, out: forward, grad, Adam on the W8 MLP
    return training_step<T>(d);
  }
  if (w == "W15softmax") {  // the backward pass of W5: dx for dy, the forward recomputed
    auto x = input<T>(1, {d[0], d[1]}), dy = input<T>(2, {d[0], d[1]});
    return make_case<T>([=] { return tj::grad(tj::softmax(x, -1), {x}, dy); });
  }
  if (w == "W15layernorm") {  // the backward pass of W6: dx, dgamma, dbeta
    auto x = input<T>(1, {d[0], d[1]}), gamma = input<T>(2, {d[1]}), beta = input<T>(3, {d[1]});
    auto dy = input<T>(4, {d[0], d[1]});
    return make_case<T>([=] { return tj::grad(tj::layernorm(x, gamma, beta, 1e-5), {x, gamma, beta}, dy); });
  }
  if (w == "W14cumsum") {
    auto x = input<T>(1, {d[0]});
    return make_case<T>([=] { return Outputs{tj::cumsum(x, 0)}; });
  }
  if (w == "W14sort") {  // values and positions, as torch.sort computes both; the values are checked
    auto x = input<T>(1, {d[0]});
    return make_case<T>([=] { return Outputs{tj::sort(x), tj::argsort(x)}; }, 1);
  }
  if (w == "W14sortvalues") {
    auto x = input<T>(1, {d[0]});
    return make_case<T>([=] { return Outputs{tj::sort(x)}; });
  }
  if (w == "W14topk") {  // k = 10 over the rows; the values are checked, the positions computed too
    auto x = input<T>(1, {d[0], d[1]});
    return make_case<T>([=] {
      auto [values, positions] = tj::topk(x, 10);
      return Outputs{values, positions};
    }, 1);
  }
  if (w == "W14indexadd") {  // rows, hidden, vocabulary: the gradient of an embedding's table
    auto rows = input<T>(1, {d[0], d[1]});
    auto ids = tj::tensor<std::int64_t>({d[0]}, bench::embedding_ids(6, d[0], d[2]));
    ids.eval();
    return make_case<T>([=] { return Outputs{tj::index_add(tj::zeros({d[2], d[1]}, tj::dtype_of<T>()), 0, ids, rows)}; });
  }
  if (w == "W14concat" || w == "W14concatops" || w == "W14separate") {  // parts, elements per part
    auto a = input<T>(1, {d[1]}), b = input<T>(2, {d[1]}), c = input<T>(3, {d[1]}), e = input<T>(4, {d[1]});
    if (w == "W14concat") return make_case<T>([=] { return Outputs{tj::concat({a, b, c, e})}; });
    if (w == "W14separate") return make_case<T>([=] { return Outputs{a * 2.0f, b + 1.0f, c * 2.0f, e + 1.0f}; });
    return make_case<T>([=] { return Outputs{tj::concat({a * 2.0f, b + 1.0f, c * 2.0f, e + 1.0f})}; });
  }
  if (w == "W12" || w == "W12rows") {  // batch, tokens, vocabulary, positions, hidden
    // MiniLM's embedding block: word rows by id, position rows by position (a materialised
    // position_ids of [1, tokens], as BERT keeps it), the token type's row 0, then layernorm.
    const std::int64_t batch = d[0], tokens = d[1], hidden = d[4];
    auto word = input<T>(1, {d[2], hidden}), position = input<T>(2, {d[3], hidden}), type_row = input<T>(3, {hidden});
    auto gamma = input<T>(4, {hidden}), beta = input<T>(5, {hidden});
    auto ids = tj::tensor<std::int64_t>({batch, tokens}, bench::embedding_ids(6, batch * tokens, d[2]));
    std::vector<std::int64_t> counting(static_cast<std::size_t>(tokens));
    for (std::int64_t t = 0; t < tokens; ++t) counting[static_cast<std::size_t>(t)] = t;
    auto positions = tj::tensor<std::int64_t>({1, tokens}, counting).expand({batch, tokens});
    tj::eval({ids, positions});
    if (w == "W12rows")
      return make_case<T>([=] { return Outputs{tj::take(word, ids) + tj::take(position, positions) + type_row}; });
    return make_case<T>([=] {
      return Outputs{tj::layernorm(tj::take(word, ids) + tj::take(position, positions) + type_row, gamma, beta, 1e-12)};
    });
  }
  if (w == "W16") return bench::prepare_minilm(request, why);  // sentences, tokens
  why = "unknown workload " + w;
  return std::nullopt;
}

// Every case settles by running once more (a loop kernel's second use asks for its optimized
// compile) and waiting for the background compiles: the samples then time the optimized code,
// the steady state. Without it, at one thread the compile thread shares the pinned core with the
// samples, and a heavy kernel was timed in its quick tier throughout (W13 normal: 82 ms against
// 40 ms settled). W10 times the tiers themselves.
std::optional<bench::PreparedCase> prepare(const bench::CaseRequest& request, std::string& why) {
  std::optional<bench::PreparedCase> prepared =
      request.dtype == "f64" ? prepare_typed<double>(request, why) : prepare_typed<float>(request, why);
  if (prepared) {
    prepared->settle = [run = prepared->run] {
      run();
      tj::wait_for_tier_ups();
    };
  }
  return prepared;
}

}  // namespace

int main() {
  const char* threads = std::getenv("TENSORJIT_THREADS");
  const char* bits = std::getenv("VECTOR_BITS");
  const std::string info = std::string("tensorjit 0.1.0, TENSORJIT_THREADS=") + (threads ? threads : "(unset)") +
                           ", VECTOR_BITS=" + (bits ? bits : "(native)");
  return bench::serve(info, prepare);
}
