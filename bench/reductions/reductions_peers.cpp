// W4-W6 side by side (issue 6): tensorjit's reductions, softmax, layernorm, the fused
// ((a - b) * (a - b)).sum() and argmax/argmin, against NumPy run as a child process in the same run, and the STREAM
// triad bandwidth measured here. Medians of interleaved runs; each row also gives the time the
// workload's compulsory traffic (read the inputs once, write the outputs once) takes at the triad
// bandwidth, and the fraction of that limit reached; "tj cpu ms" is the median process CPU time of
// a call (robust when other processes share the core; with more threads it sums them).
//
//   TENSORJIT_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
//     taskset -c 0 build/bench/reductions/reductions_peers [--runs 7] [--no-numpy] [--only NAME]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "../limits/triad_loop.hpp"

namespace tj = tensorjit;

namespace {

struct Workload {
  std::string name;
  double bytes;  // compulsory traffic: inputs read once, outputs written once
  std::function<tj::Tensor()> build;
};

template <typename T>
tj::Tensor random_tensor(const tj::Shape& shape, std::uint64_t seed) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  auto* data = new T[static_cast<std::size_t>(n)];
  std::mt19937_64 rng(seed);
  std::normal_distribution<T> normal(0, 1);
  for (std::int64_t i = 0; i < n; ++i) data[i] = normal(rng);
  return tj::from_blob(data, shape, {}, tj::dtype_of<T>(), [data] { delete[] data; });
}

// CPU time of the whole process (every thread), in ms: on a shared machine, unlike the wall
// time, it does not count the time other processes hold the core.
double process_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Bytes the triad moves per second on one thread over n doubles per array (24 an element, no
// write-allocate traffic, as STREAM counts), median of `runs` passes.
double triad_bytes_per_second(long n, int runs) {
  bench::TriadArrays arrays = bench::triad_arrays(n, 1);
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) seconds.push_back(bench::triad_pass_seconds(arrays, 3.0, 1));
  return 3.0 * 8.0 * static_cast<double>(n) / median(seconds);
}

std::map<std::string, double> run_numpy(int runs) {
  std::map<std::string, double> times;
  const std::string command =
      std::string("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 ") +
      NUMPY_PEER_SCRIPT + " " + std::to_string(runs);
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return times;
  char name[128];
  double ms = 0;
  while (std::fscanf(pipe, "%127s %lf", name, &ms) == 2) times[name] = ms;
  pclose(pipe);
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  bool numpy = true;
  std::string only;  // run only the workloads whose name contains this (for profiling)
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    if (flag == "--no-numpy") numpy = false;
    if (flag == "--only" && i + 1 < argc) only = argv[++i];
  }
  const double bandwidth = triad_bytes_per_second(1L << 25, runs);

  const std::int64_t mi16 = std::int64_t{16} << 20;
  auto full = random_tensor<float>({mi16}, 1);
  auto other = random_tensor<float>({mi16}, 2);
  auto square = full.reshape({4096, 4096});
  auto square64 = random_tensor<double>({4096, 4096}, 3);
  auto rows = random_tensor<float>({4096, 1024}, 4);
  auto gamma = random_tensor<float>({1024}, 5);
  auto beta = random_tensor<float>({1024}, 6);
  const double f32_16mi = 4.0 * static_cast<double>(mi16);

  const std::vector<Workload> workloads = {
      {"w4_sum_16Mi_f32", f32_16mi, [&] { return full.sum(); }},
      {"w4_sum_axis0_4096x4096_f32", f32_16mi, [&] { return square.sum({0}); }},
      {"w4_sum_axis1_4096x4096_f32", f32_16mi, [&] { return square.sum({1}); }},
      {"w4_max_16Mi_f32", f32_16mi, [&] { return full.max(); }},
      {"w5_softmax_4096x4096_f32", 2 * f32_16mi, [&] { return tj::softmax(square, -1); }},
      {"w5_softmax_4096x4096_f64", 4 * f32_16mi, [&] { return tj::softmax(square64, -1); }},
      {"w6_layernorm_4096x1024_f32", 2 * 4.0 * 4096 * 1024,
       [&] { return tj::layernorm(rows, gamma, beta, 1e-5); }},
      {"fused_sq_diff_sum_16Mi_f32", 2 * f32_16mi,
       [&] { return ((full - other) * (full - other)).sum(); }},
      {"argmax_axis1_4096x4096_f32", f32_16mi + 8.0 * 4096, [&] { return square.argmax(1); }},
      {"argmin_axis0_4096x4096_f32", f32_16mi + 8.0 * 4096, [&] { return square.argmin(0); }},
  };

  std::map<std::string, double> ours, ours_cpu;
  for (const auto& workload : workloads) {
    if (workload.name.find(only) == std::string::npos) continue;
    workload.build().eval();  // compile once
    std::vector<double> times, cpu_times;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = process_cpu_ms();
      tj::Tensor result = workload.build();
      result.eval();
      cpu_times.push_back(process_cpu_ms() - cpu_start);
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
    ours[workload.name] = median(times);
    ours_cpu[workload.name] = median(cpu_times);
  }
  const auto peers = numpy ? run_numpy(runs) : std::map<std::string, double>{};

  std::printf("triad bandwidth: %.1f GB/s (one thread)\n\n", bandwidth / 1e9);
  std::printf("%-28s %10s %10s %9s %12s %9s %10s\n", "workload", "tj ms", "numpy ms", "speedup",
              "traffic ms", "of limit", "tj cpu ms");
  for (const auto& workload : workloads) {
    if (!ours.count(workload.name)) continue;
    const double ms = ours[workload.name];
    const double limit_ms = workload.bytes / bandwidth * 1e3;
    const auto peer = peers.find(workload.name);
    if (peer != peers.end()) {
      std::printf("%-28s %10.2f %10.2f %8.2fx %12.2f %8.0f%% %10.2f\n", workload.name.c_str(), ms,
                  peer->second, peer->second / ms, limit_ms, 100 * limit_ms / ms,
                  ours_cpu[workload.name]);
    } else {
      std::printf("%-28s %10.2f %10s %9s %12.2f %8.0f%% %10.2f\n", workload.name.c_str(), ms, "-",
                  "-", limit_ms, 100 * limit_ms / ms, ours_cpu[workload.name]);
    }
  }
  std::fflush(stdout);
  return 0;
}
