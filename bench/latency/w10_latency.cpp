// W10, JIT latency: in a fresh process, the first eval of W1 (which compiles its kernel, quickly,
// or loads it from TENSORJIT_CACHE_DIR when that folder is warm), then a second eval of the same
// expression built anew (which finds the kernel in the in-memory cache and, the kernel being used
// again, compiles it optimized: in the foreground, as it is the process's first optimized compile,
// docs/codegen.md "Tiers"), then a third (a plain cache hit). bench/run.py spawns this program once
// per sample, with and without a warm cache folder, and reads one JSON line.
//
//   w10_latency [elements, default 65536]
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

// Seconds to build W1 on fresh handles of the same inputs and evaluate it.
double time_w1_eval(const tj::Tensor& a, const tj::Tensor& b, const tj::Tensor& c) {
  const auto start = std::chrono::steady_clock::now();
  tj::Tensor y = tj::maximum(a * b + c, 0.0f) * 0.5f;
  y.eval();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t count = argc > 1 ? std::atoll(argv[1]) : 65536;
  const tj::Tensor a = input(1, count), b = input(2, count), c = input(3, count);
  const double first = time_w1_eval(a, b, c);
  const tj::JitStatistics after_first = tj::jit_statistics();
  const double second = time_w1_eval(a, b, c);
  const tj::JitStatistics after_second = tj::jit_statistics();
  const double third = time_w1_eval(a, b, c);
  std::printf("{\"first_eval_s\": %.9f, \"second_eval_s\": %.9f, \"third_eval_s\": %.9f, "
              "\"first_compiles\": %llu, \"first_disk_hits\": %llu, \"second_memory_hits\": %llu, "
              "\"second_compiles\": %llu}\n",
              first, second, third, (unsigned long long)after_first.compiles, (unsigned long long)after_first.disk_hits,
              (unsigned long long)(after_second.memory_hits - after_first.memory_hits),
              (unsigned long long)(after_second.compiles - after_first.compiles));
  std::fflush(stdout);  // the line must reach the driver even if the process then fails at exit
  return 0;
}
