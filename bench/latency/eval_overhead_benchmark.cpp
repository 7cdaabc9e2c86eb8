// Google Benchmark micro-benchmarks of what an eval costs besides its kernel: W11's 8-element
// a*b + c (graph building, planning or the plan cache, the kernel lookup, the output allocation) and
// W1 on 64 Ki elements with its kernel already compiled, and a softmax whose result is between
// 128 KiB and 4 MiB (what its allocation costs: the buffers docs/architecture.md describes).
// bench/run.py measures W1 and W11 side by side with the peers; this is the quick loop for working
// on the overhead itself.
//
//   build/bench/latency/eval_overhead_benchmark [--benchmark_filter=W11]
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "../peers/bench_inputs.hpp"

namespace tj = tensorjit;

namespace {

tj::Tensor input(std::uint64_t stream, std::int64_t count) {
  auto values = std::make_shared<std::vector<float>>(bench::make_input<float>(stream, count));
  return tj::from_blob(values->data(), {count}, {}, tj::f32, [values] {});
}

void W11_small_eval(benchmark::State& state) {
  const tj::Tensor a = input(1, 8), b = input(2, 8), c = input(3, 8);
  for (auto _ : state) {
    tj::Tensor y = a * b + c;
    y.eval();
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(W11_small_eval);

void W1_cached_eval(benchmark::State& state) {
  const std::int64_t count = state.range(0);
  const tj::Tensor a = input(1, count), b = input(2, count), c = input(3, count);
  for (auto _ : state) {
    tj::Tensor y = tj::maximum(a * b + c, 0.0f) * 0.5f;
    y.eval();
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * count * 16);
}
BENCHMARK(W1_cached_eval)->Arg(64 << 10)->Arg(1 << 20);

// Two results alive at once, as a user's step makes them: freed together at the end of each
// iteration, which is when glibc gave blocks above its mmap threshold back to the kernel.
void softmax_and_scale_rows_of_1024(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const tj::Tensor x = input(4, rows * 1024).reshape({rows, 1024});
  for (auto _ : state) {
    tj::Tensor y = tj::softmax(x, -1);
    tj::Tensor z = x * 2.0f + 1.0f;
    y.eval();
    z.eval();
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * 1024 * 16);
}
BENCHMARK(softmax_and_scale_rows_of_1024)->Arg(128)->Arg(512);

}  // namespace

BENCHMARK_MAIN();
