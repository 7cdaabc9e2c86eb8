// The product epilogue, measured (issue 7; figures and commands in docs/epilogues.md):
//   dense  W8's dense layer relu(x·W + b), 256 × 784 → 512: fused vs our bare matmul, our
//          unfused matmul-then-pass, OpenBLAS sgemm + a bias+relu pass, oneDNN matmul with bias
//          and relu post-ops. Meant for one thread pinned to one core (run.sh).
//   wide   a product whose output dominates, 4096 (--rows) × 64 → 4096, then + bias, gelu_tanh, + a
//          residual: fused vs our unfused product-then-elementwise (two evals), on all cores;
//          then the same with relu, and relu(x·W + b) alone (the GEMM's store stage). The residual
//          is a wrapped std::vector, or with --residual aligned a 64-byte aligned tensorjit copy.
//   mlp    the MLP 784-512-10 forward, batch 256: tensorjit vs Eigen vs NumPy (OpenBLAS).
// Each round runs every contender once, in turn, starting one further each round; a run repeats
// the call for at least 20 ms and reports its mean; the table gives the median over rounds. The clock is the calling thread's CPU
// time with --clock cpu (stable on a shared machine for one-thread runs), else wall time.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fmt/format.h>
#include <functional>
#include <random>
#include <string>
#include <tensorjit/tensorjit.hpp>
#include <vector>

#include "../gemm/blas_peers.hpp"
#include "../peers/dense_layers.hpp"
#include "peers.hpp"

namespace tj = tensorjit;

namespace {

struct Options {
  std::string section = "dense";
  int rounds = 7;
  bool cpu_clock = false;
  int threads = 1;
  std::int64_t wide_rows = 4096;  // above 4096 (A over 1 MiB) the product takes the packed path
  // The wide section's residual: wrapped from a std::vector (16 bytes past a cache line here),
  // or, with --residual aligned, a tensorjit copy of it (64-byte aligned).
  bool aligned_residual = false;
};

double now_seconds(bool cpu_clock) {
  if (!cpu_clock) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Contender {
  Contender(std::string contender_name, std::function<void()> contender_call)
      : name(std::move(contender_name)), call(std::move(contender_call)) {}
  std::string name;
  std::function<void()> call;
  std::vector<double> microseconds;  // one mean per round
};

void run_rounds(std::vector<Contender>& contenders, const Options& options) {
  for (auto& c : contenders) c.call();  // warm: compiles, plans, workspaces, primitives
  // Round r starts with contender r: whoever runs right after another library (its heap, its
  // cache footprint) measured up to 3 % slower, so every contender takes every place in turn.
  const std::size_t count = contenders.size();
  for (int round = 0; round < options.rounds; ++round)
    for (std::size_t turn = 0; turn < count; ++turn) {
      Contender& c = contenders[(static_cast<std::size_t>(round) + turn) % count];
      int calls = 0;
      const double start = now_seconds(options.cpu_clock);
      double elapsed = 0;
      do {
        c.call();
        ++calls;
        elapsed = now_seconds(options.cpu_clock) - start;
      } while (elapsed < 0.02);
      c.microseconds.push_back(elapsed / calls * 1e6);
    }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void print_table(const std::vector<Contender>& contenders, const std::string& title, std::size_t baseline) {
  fmt::print("\n{}\n\n| contender | median µs | ÷ {} |\n|---|---|---|\n", title, contenders[baseline].name);
  const double base = median(contenders[baseline].microseconds);
  for (const auto& c : contenders) {
    const double m = median(c.microseconds);
    fmt::print("| {} | {:.1f} | {:.3f} |\n", c.name, m, m / base);
  }
  std::fflush(stdout);
}

std::vector<float> random_values(std::size_t count, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (auto& v : values) v = uniform(generator);
  return values;
}

tj::Tensor wrap(std::vector<float>& values, const tj::Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * shape[d + 1];
  return tj::from_blob(values.data(), shape, strides, tj::f32);
}

float max_difference(const std::vector<float>& a, const float* b) {
  float worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

void dense_section(const Options& options) {
  const std::int64_t rows = 256, in = 784, out = 512;
  auto x_values = random_values(static_cast<std::size_t>(rows * in), 1);
  auto w_values = random_values(static_cast<std::size_t>(in * out), 2, 0.05f);
  auto b_values = random_values(static_cast<std::size_t>(out), 3);
  tj::Tensor x = wrap(x_values, {rows, in}), w = wrap(w_values, {in, out}), b = wrap(b_values, {out});
  std::vector<float> y(static_cast<std::size_t>(rows * out));
  gemm_bench::Peer openblas = gemm_bench::open_openblas();
  if (openblas.present) openblas.set_threads(openblas, options.threads);
  omp_set_num_threads(options.threads);

  tj::Tensor fused_result;
  std::vector<Contender> contenders;
  contenders.push_back({"tensorjit fused relu(x·W + b)", [&] { fused_result = tj::relu(tj::matmul(x, w) + b).eval(); }});
  contenders.push_back({"tensorjit bare x·W", [&] { tj::matmul(x, w).eval(); }});
  contenders.push_back({"tensorjit unfused (x·W).eval(), then relu(· + b)", [&] {
                          tj::Tensor product = tj::matmul(x, w).eval();
                          tj::relu(product + b).eval();
                        }});
  if (openblas.present)
    contenders.push_back({"OpenBLAS sgemm + bias+relu pass", [&] {
                            openblas.sgemm(&openblas, rows, out, in, x_values.data(), w_values.data(), y.data());
                            epilogue_bench::bias_relu_pass(y.data(), b_values.data(), rows, out);
                          }});
#ifdef TENSORJIT_BENCH_HAVE_ONEDNN
  auto onednn = bench::onednn_dense({rows, in, out}, true);
  std::vector<float> y_onednn(y.size());
  contenders.push_back({"oneDNN matmul, bias + relu post-ops",
                        [&] { onednn(x_values.data(), w_values.data(), b_values.data(), y_onednn.data()); }});
#endif
  run_rounds(contenders, options);
  print_table(contenders, fmt::format("dense layer relu(x·W + b), {}×{}→{}, {} thread(s), {} rounds, {} clock", rows,
                                      in, out, options.threads, options.rounds, options.cpu_clock ? "thread CPU" : "wall"),
              1);
  const std::vector<float> ours = fused_result.to_vector<float>();
  if (openblas.present) fmt::print("\nmax |tensorjit - OpenBLAS| = {:.3g}\n", max_difference(ours, y.data()));
}

void wide_section(const Options& options) {
  const std::int64_t rows = options.wide_rows, k = 64, out = 4096;
  auto x_values = random_values(static_cast<std::size_t>(rows * k), 4);
  auto w_values = random_values(static_cast<std::size_t>(k * out), 5, 0.2f);
  auto b_values = random_values(static_cast<std::size_t>(out), 6);
  auto r_values = random_values(static_cast<std::size_t>(rows * out), 7);
  tj::Tensor x = wrap(x_values, {rows, k}), w = wrap(w_values, {k, out}), b = wrap(b_values, {out});
  tj::Tensor residual = wrap(r_values, {rows, out});
  if (options.aligned_residual) residual = residual.copy().eval();
  tj::Tensor fused_result, unfused_result;
  std::vector<Contender> contenders;
  contenders.push_back({"tensorjit fused gelu_tanh(x·W + b) + r",
                        [&] { fused_result = (tj::gelu_tanh(tj::matmul(x, w) + b) + residual).eval(); }});
  contenders.push_back({"tensorjit unfused (x·W).eval(), then gelu_tanh(· + b) + r", [&] {
                          tj::Tensor product = tj::matmul(x, w).eval();
                          unfused_result = (tj::gelu_tanh(product + b) + residual).eval();
                        }});
  contenders.push_back({"tensorjit bare x·W", [&] { tj::matmul(x, w).eval(); }});
  // Without the residual: what gelu_tanh's arithmetic costs in the epilogue, apart from the
  // residual's reads.
  contenders.push_back({"tensorjit fused gelu_tanh(x·W + b), no residual",
                        [&] { tj::gelu_tanh(tj::matmul(x, w) + b).eval(); }});
  // The same with a cheap activation: what the epilogue's tile kernel and its tile-order reads
  // of the residual cost, without gelu_tanh's arithmetic to hide them.
  contenders.push_back({"tensorjit fused relu(x·W + b) + r",
                        [&] { (tj::relu(tj::matmul(x, w) + b) + residual).eval(); }});
  contenders.push_back({"tensorjit unfused (x·W).eval(), then relu(· + b) + r", [&] {
                          tj::Tensor product = tj::matmul(x, w).eval();
                          (tj::relu(product + b) + residual).eval();
                        }});
  contenders.push_back({"tensorjit fused relu(x·W + b) (store stage)", [&] { tj::relu(tj::matmul(x, w) + b).eval(); }});
  run_rounds(contenders, options);
  print_table(contenders, fmt::format("wide product {}×{}→{}, + bias, gelu_tanh, + residual, {} rounds, {} clock",
                                      rows, k, out, options.rounds, options.cpu_clock ? "thread CPU" : "wall"),
              0);
  const bool same = fused_result.to_vector<float>() == unfused_result.to_vector<float>();
  fmt::print("\nfused == unfused bit for bit: {}\n", same ? "yes" : "NO");
}

// NumPy in a child process (Debian's /usr/bin/python3, whose numpy calls OpenBLAS), same clock.
double numpy_mlp_microseconds(std::int64_t rows, std::int64_t in, std::int64_t hidden, std::int64_t out,
                              const Options& options) {
  const std::string command = fmt::format("/usr/bin/python3 {} {} {} {} {} {} {}", TENSORJIT_NUMPY_MLP, rows, in,
                                          hidden, out, options.rounds, options.cpu_clock ? "cpu" : "wall");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return 0;
  char line[64] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  return read ? std::atof(line) : 0;
}

void mlp_section(const Options& options) {
  const std::int64_t rows = 256, in = 784, hidden = 512, out = 10;
  auto x_values = random_values(static_cast<std::size_t>(rows * in), 8);
  auto w1_values = random_values(static_cast<std::size_t>(in * hidden), 9, 0.05f);
  auto b1_values = random_values(static_cast<std::size_t>(hidden), 10);
  auto w2_values = random_values(static_cast<std::size_t>(hidden * out), 11, 0.05f);
  auto b2_values = random_values(static_cast<std::size_t>(out), 12);
  tj::Tensor x = wrap(x_values, {rows, in}), w1 = wrap(w1_values, {in, hidden}), b1 = wrap(b1_values, {hidden});
  tj::Tensor w2 = wrap(w2_values, {hidden, out}), b2 = wrap(b2_values, {out});
  omp_set_num_threads(options.threads);

  tj::Tensor logits;
  std::vector<Contender> contenders;
  contenders.push_back({"tensorjit", [&] { logits = (tj::matmul(tj::relu(tj::matmul(x, w1) + b1), w2) + b2).eval(); }});
#ifdef TENSORJIT_BENCH_HAVE_EIGEN
  epilogue_bench::eigen_set_threads(options.threads);
  std::vector<float> hidden_values(static_cast<std::size_t>(rows * hidden)), y(static_cast<std::size_t>(rows * out));
  epilogue_bench::MlpWeights weights{w1_values.data(), b1_values.data(), w2_values.data(), b2_values.data(),
                                     in, hidden, out};
  contenders.push_back({"Eigen", [&] {
                          epilogue_bench::eigen_mlp(x_values.data(), rows, weights, hidden_values.data(), y.data());
                        }});
#endif
  run_rounds(contenders, options);
  print_table(contenders, fmt::format("MLP {}-{}-{} forward, batch {}, {} thread(s), {} rounds, {} clock", in, hidden,
                                      out, rows, options.threads, options.rounds, options.cpu_clock ? "thread CPU" : "wall"),
              0);
  const double numpy = numpy_mlp_microseconds(rows, in, hidden, out, options);
  const double ours = median(contenders[0].microseconds);
  fmt::print("| NumPy (OpenBLAS), a child process, run after | {:.1f} | {:.3f} |\n", numpy, numpy / ours);
#ifdef TENSORJIT_BENCH_HAVE_EIGEN
  fmt::print("\nmax |tensorjit - Eigen| = {:.3g}\n", max_difference(logits.to_vector<float>(), y.data()));
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--section") options.section = value;
    else if (flag == "--rounds") options.rounds = std::stoi(value);
    else if (flag == "--clock") options.cpu_clock = value == "cpu";
    else if (flag == "--threads") options.threads = std::stoi(value);
    else if (flag == "--rows") options.wide_rows = std::stoll(value);
    else if (flag == "--residual" && (value == "wrapped" || value == "aligned"))
      options.aligned_residual = value == "aligned";
    else {
      fmt::print(stderr, "usage: epilogue_peers [--section dense|wide|mlp] [--rounds R] [--clock cpu|wall] "
                         "[--threads T (peers; tensorjit reads TENSORJIT_THREADS)] [--rows M (wide section, default 4096)] "
                         "[--residual wrapped|aligned (wide section, default wrapped)]\n");
      return 2;
    }
  }
  if (options.section == "dense") dense_section(options);
  else if (options.section == "wide") wide_section(options);
  else if (options.section == "mlp") mlp_section(options);
  std::fflush(stdout);
  return 0;
}
