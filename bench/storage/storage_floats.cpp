// f16 and bf16 beside f32 in one process (docs/gemm.md, "16-bit operands"; bench/README.md):
//
//   - matmul 1024³: C = A·B with A and B f32, bf16 or f16 (the 16-bit products convert their
//     operands in the GEMM's packing and round C once), GFLOP/s and the ratio to f32;
//   - the W1 chain max(a*b+c, 0)*0.5 over 16 Mi elements in f32, f16 and bf16 (each op computes
//     in f32 and rounds), elements per second and the ratio to f32.
//
// Each sample times `calls` evaluations of the expression built anew on the same materialised
// inputs (graph building, planning, the kernel cache lookup and the output allocation included, as
// bench/peers/tensorjit_worker.cpp times), after a warm-up; the dtypes alternate within each
// round, the order rotating, and the figure is the median over the rounds. One JSON line per case
// on stdout, for bench/run.py; a table on stderr.
//
//   storage_floats [rounds, default 7] [matmul side, default 1024] [chain elements, default 16 Mi]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "../peers/bench_inputs.hpp"

namespace tj = tensorjit;

namespace {

// bench_inputs' values as f32, converted to `dtype` and materialised.
tj::Tensor input(std::uint64_t stream, const tj::Shape& shape, tj::DType dtype) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  auto values = std::make_shared<std::vector<float>>(bench::make_input<float>(stream, count));
  tj::Tensor wide = tj::from_blob(values->data(), shape, {}, tj::f32, [values] {});
  if (dtype == tj::f32) return wide;
  tj::Tensor narrow = wide.astype(dtype);
  narrow.eval();
  return narrow;
}

double seconds_per_call(const std::function<void()>& call, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

struct Case {
  std::string workload;  // "matmul" or "chain"
  tj::DType dtype;
  std::function<void()> call;
  int calls;
  double work;  // flops (matmul) or elements (chain) per call
  std::vector<double> samples;
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const std::int64_t side = argc > 2 ? std::atoll(argv[2]) : 1024;
  const std::int64_t elements = argc > 3 ? std::atoll(argv[3]) : std::int64_t{16} << 20;
  std::vector<Case> cases;
  for (tj::DType dtype : {tj::f32, tj::bf16, tj::f16}) {
    const tj::Tensor a = input(1, {side, side}, dtype), b = input(2, {side, side}, dtype);
    cases.push_back({"matmul", dtype, [a, b] { tj::matmul(a, b).eval(); }, 3, 2.0 * side * side * side, {}});
  }
  for (tj::DType dtype : {tj::f32, tj::f16, tj::bf16}) {
    const tj::Tensor a = input(1, {elements}, dtype), b = input(2, {elements}, dtype), c = input(3, {elements}, dtype);
    cases.push_back({"chain", dtype, [a, b, c] { (tj::maximum(a * b + c, 0.0f) * 0.5f).eval(); }, 5,
                     static_cast<double>(elements), {}});
  }
  for (Case& c : cases) seconds_per_call(c.call, 2);  // compile, tier up, fault the pages in
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Case& c = cases[(i + static_cast<std::size_t>(round)) % cases.size()];
      c.samples.push_back(seconds_per_call(c.call, c.calls));
    }
  std::fprintf(stderr, "%-7s %-5s %12s %14s %9s\n", "case", "dtype", "median ms", "rate", "vs f32");
  for (const Case& c : cases) {
    const double seconds = median(c.samples);
    const auto f32 = std::find_if(cases.begin(), cases.end(),
                                  [&](const Case& o) { return o.workload == c.workload && o.dtype == tj::f32; });
    const double ratio = median(f32->samples) / seconds;  // > 1: faster than f32
    const double rate = c.work / seconds;
    const char* unit = c.workload == "matmul" ? "GFLOP/s" : "Gelem/s";
    std::fprintf(stderr, "%-7s %-5s %12.3f %7.2f %s %8.2fx\n", c.workload.c_str(), std::string(tj::dtype_name(c.dtype)).c_str(),
                 seconds * 1e3, rate * 1e-9, unit, ratio);
    std::printf("{\"workload\": \"%s\", \"dtype\": \"%s\", \"median_s\": %.9f, \"min_s\": %.9f, \"max_s\": %.9f, "
                "\"rate\": %.6e, \"vs_f32\": %.4f, \"samples\": %zu}\n",
                c.workload.c_str(), std::string(tj::dtype_name(c.dtype)).c_str(), seconds,
                *std::min_element(c.samples.begin(), c.samples.end()), *std::max_element(c.samples.begin(), c.samples.end()),
                rate, ratio, c.samples.size());
  }
  std::fflush(stdout);
  return 0;
}
