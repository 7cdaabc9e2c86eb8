// few_rows: products of few rows against weights packed ahead of time, as a sentence of a few
// tokens meets a model's layers. The weights have all-MiniLM-L6-v2's shapes (six layers, each of
// four 384×384 weights, a 384×1536 and a 1536×384: 42.5 MB, more than L2, so each product streams
// its panels from L3 or memory) and random values; for each row count the 36 products run one after another on
// one thread, and the median of the rounds is printed with its GFLOP/s. Timed in the thread's CPU
// time, which a shared machine's other processes disturb less than wall time (their time slices are
// left out; their cache and memory traffic is not). No peer: run it from two builds, alternately,
// to compare them (docs/gemm.md, "Row blocks").
//
//   taskset -c 1 few_rows [--rows 11,12,16,17] [--rounds 300]
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

#include <CLI/CLI.hpp>

#include <tensorjit/kernels/gemm.hpp>

namespace {

namespace tk = tensorjit::kernels;

struct Weight {
  std::int64_t k = 0, n = 0;
  std::vector<float> values;  // k×n, row-major
  std::vector<float> panels;  // pack_b's
  int panel_width = 0;
};

std::vector<Weight> minilm_weights() {
  std::mt19937 engine(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<Weight> weights;
  for (int layer = 0; layer < 6; ++layer)
    for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{384, 384}, {384, 384}, {384, 384}, {384, 384},
                        {384, 1536}, {1536, 384}}) {
      Weight w{k, n, std::vector<float>(static_cast<std::size_t>(k * n)), {}, 0};
      for (float& v : w.values) v = uniform(engine);
      w.panels.resize(static_cast<std::size_t>(tk::packed_b_elements(k, n, false)));
      w.panel_width = tk::pack_b(tk::MatrixView<float>{w.values.data(), n, 1}, k, n, {}, w.panels.data());
      weights.push_back(std::move(w));
    }
  return weights;
}

double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Seconds for one pass of `rows`-row products over every weight: the median of `rounds`.
double median_pass(const std::vector<Weight>& weights, std::int64_t rows, int rounds) {
  std::vector<float> a(static_cast<std::size_t>(rows * 1536), 0.5f), c(static_cast<std::size_t>(rows * 1536));
  std::vector<double> seconds;
  for (int round = 0; round < rounds; ++round) {
    const double start = thread_seconds();
    for (const Weight& w : weights) {
      tk::GemmArgs<float> args;
      args.m = rows;
      args.n = w.n;
      args.k = w.k;
      args.a = {a.data(), w.k, 1};
      args.b = {w.values.data(), w.n, 1};
      args.c = {c.data(), w.n};
      args.packed_b = {w.panels.data(), w.panel_width};
      tk::gemm(args);
    }
    seconds.push_back(thread_seconds() - start);
  }
  std::nth_element(seconds.begin(), seconds.begin() + rounds / 2, seconds.end());
  return seconds[static_cast<std::size_t>(rounds / 2)];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"few_rows: products of few rows against MiniLM-shaped weights packed ahead, one thread"};
  std::vector<std::int64_t> rows{1, 8, 11, 12, 13, 15, 16, 17};
  int rounds = 300;
  app.add_option("--rows", rows, "row counts to time")->delimiter(',')->check(CLI::Range(1, 4096));
  app.add_option("--rounds", rounds, "passes over the weights per row count; the median is printed")
      ->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  const std::vector<Weight> weights = minilm_weights();
  double multiply_adds_per_row = 0;
  for (const Weight& w : weights) multiply_adds_per_row += static_cast<double>(w.k * w.n);
  std::printf("| rows | ms per pass | GFLOP/s |\n|---|---|---|\n");
  for (std::int64_t m : rows) {
    const double seconds = median_pass(weights, m, rounds);
    std::printf("| %lld | %.3f | %.1f |\n", static_cast<long long>(m), seconds * 1e3,
                2 * multiply_adds_per_row * static_cast<double>(m) / seconds / 1e9);
  }
}
