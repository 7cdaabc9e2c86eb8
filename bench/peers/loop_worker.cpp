// The hand-written fused C++ loops (fused_loops.hpp) as a benchmark peer. Outputs are allocated
// once per case: the loops write in place, which is the point of writing them by hand.
//
// It also serves the case `triad f64 <n>`, STREAM's triad over three arrays of n doubles
// (bench/limits/triad_loop.hpp): run.py starts a second loop_worker as its bandwidth probe and
// times that case right before each sample of a bandwidth-bound workload (bench/README.md).
//
//   loop_worker   (then the line protocol of worker_loop.hpp; threads from OMP_NUM_THREADS)
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "bench_inputs.hpp"
#include "fused_loops.hpp"
#include "triad_loop.hpp"
#include "worker_loop.hpp"

namespace {

template <class T>
struct Buffers {
  std::vector<std::vector<T>> inputs;
  std::vector<std::vector<T>> outputs;
  const T* in(std::size_t i) const { return inputs[i].data(); }
  T* out(std::size_t i) { return outputs[i].data(); }
};

// Inputs of the given sizes from streams 1, 2, ... and zeroed outputs; `run` gets the buffers.
template <class T>
bench::PreparedCase make_case(std::vector<std::int64_t> input_sizes, std::vector<std::int64_t> output_sizes,
                              std::function<void(Buffers<T>&)> run, std::int64_t positive_input = -1) {
  auto buffers = std::make_shared<Buffers<T>>();
  for (std::size_t i = 0; i < input_sizes.size(); ++i)
    buffers->inputs.push_back(bench::make_input<T>(i + 1, input_sizes[i], std::int64_t(i) == positive_input));
  for (std::int64_t size : output_sizes) buffers->outputs.emplace_back(std::size_t(size));
  bench::PreparedCase prepared;
  prepared.run = [buffers, run] { run(*buffers); };
  prepared.write_outputs = [buffers](std::FILE* file) {
    for (const auto& output : buffers->outputs) std::fwrite(output.data(), sizeof(T), output.size(), file);
  };
  return prepared;
}

std::optional<bench::PreparedCase> prepare_triad(std::int64_t n) {
  const int threads = omp_get_max_threads();
  auto arrays = std::make_shared<bench::TriadArrays>(bench::triad_arrays(long(n), threads));
  bench::PreparedCase prepared;
  prepared.run = [arrays, threads] { bench::triad_pass_seconds(*arrays, 3.0, threads); };
  prepared.write_outputs = [arrays](std::FILE* file) { std::fwrite(arrays->a.get(), sizeof(double), arrays->n, file); };
  return prepared;
}

std::optional<bench::PreparedCase> prepare_double(const bench::CaseRequest& request, std::string& why) {
  const auto& d = request.dims;
  if (request.workload == "triad" && d.size() == 1) return prepare_triad(d[0]);
  if (request.workload == "W5")
    return make_case<double>({d[0] * d[1]}, {d[0] * d[1]}, [=](Buffers<double>& b) {
      bench::loops::softmax_rows(b.in(0), b.out(0), d[0], d[1]);
    });
  why = "f64 is written for W5 only";
  return std::nullopt;
}

std::optional<bench::PreparedCase> prepare(const bench::CaseRequest& request, std::string& why) {
  namespace loops = bench::loops;
  using B = Buffers<float>;
  if (request.dtype == "f64") return prepare_double(request, why);
  const std::string& w = request.workload;
  const auto& d = request.dims;
  if (w == "W1") return make_case<float>({d[0], d[0], d[0]}, {d[0]}, [=](B& b) { loops::w1(b.in(0), b.in(1), b.in(2), b.out(0), d[0]); });
  if (w == "W11")
    return make_case<float>({d[0], d[0], d[0]}, {d[0]}, [=](B& b) {
      for (std::int64_t i = 0; i < d[0]; ++i) b.out(0)[i] = b.in(0)[i] * b.in(1)[i] + b.in(2)[i];
    });
  if (w == "W2") return make_case<float>({d[0]}, {d[0]}, [=](B& b) { loops::w2(b.in(0), b.out(0), d[0]); });
  const std::int64_t cells = d.size() >= 2 ? d[0] * d[1] : 0;
  if (w == "W3a")
    return make_case<float>({cells, d[1], d[0]}, {cells}, [=](B& b) {
      loops::w3_outer(b.in(0), b.in(1), b.in(2), b.out(0), d[0], d[1]);
    });
  if (w == "W3b")
    return make_case<float>({cells, cells}, {cells}, [=](B& b) {
      loops::w3_transpose(b.in(0), b.in(1), b.out(0), d[0], d[1]);
    });
  if (w == "W4sum") return make_case<float>({d[0]}, {1}, [=](B& b) { b.out(0)[0] = loops::sum(b.in(0), d[0]); });
  if (w == "W4max") return make_case<float>({cells}, {1}, [=](B& b) { b.out(0)[0] = loops::max(b.in(0), cells); });
  if (w == "W4sum0") return make_case<float>({cells}, {d[1]}, [=](B& b) { loops::sum_axis0(b.in(0), b.out(0), d[0], d[1]); });
  if (w == "W4sum1") return make_case<float>({cells}, {d[0]}, [=](B& b) { loops::sum_axis1(b.in(0), b.out(0), d[0], d[1]); });
  if (w == "W5") return make_case<float>({cells}, {cells}, [=](B& b) { loops::softmax_rows(b.in(0), b.out(0), d[0], d[1]); });
  if (w == "W6")
    return make_case<float>({cells, d[1], d[1]}, {cells}, [=](B& b) {
      loops::layernorm_rows(b.in(0), b.in(1), b.in(2), b.out(0), d[0], d[1], 1e-5f);
    });
  if (w == "W9") {
    const double correction1 = 1 - std::pow(0.9, 10), correction2 = 1 - std::pow(0.999, 10);
    return make_case<float>({d[0], d[0], d[0], d[0]}, {d[0], d[0], d[0]}, [=](B& b) {
      loops::adam(b.in(0), b.in(1), b.in(2), b.in(3), b.out(0), b.out(1), b.out(2), d[0], 0.9f, 0.999f, 1e-8f,
                  float(1e-3 / correction1), float(std::sqrt(correction2)));
    }, /*positive_input=*/3);
  }
  if (w == "W14concat" || w == "W14concatops" || w == "W14separate") {  // parts, elements per part
    const std::vector<std::int64_t> parts(std::size_t(d[0]), d[1]);
    if (w == "W14concat")  // the memcpy of each part to its place, in 64 pieces a part over the threads
      return make_case<float>(parts, {d[0] * d[1]}, [=](B& b) {
        const std::int64_t piece = (d[1] + 63) / 64;
#pragma omp parallel for collapse(2) schedule(static)
        for (std::int64_t p = 0; p < d[0]; ++p)
          for (std::int64_t first = 0; first < d[1]; first += piece)
            std::memcpy(b.out(0) + p * d[1] + first, b.in(std::size_t(p)) + first,
                        sizeof(float) * std::size_t(std::min(piece, d[1] - first)));
      });
    // Part p is p % 2 == 0 ? x * 2 : x + 1, written at p * n of one output or to an output of its own.
    const bool joined = w == "W14concatops";
    return make_case<float>(parts, joined ? std::vector<std::int64_t>{d[0] * d[1]} : parts, [=](B& b) {
      for (std::int64_t p = 0; p < d[0]; ++p) {
        const float* x = b.in(std::size_t(p));
        float* y = joined ? b.out(0) + p * d[1] : b.out(std::size_t(p));
        const float scale = p % 2 == 0 ? 2.0f : 1.0f, shift = p % 2 == 0 ? 0.0f : 1.0f;
#pragma omp parallel for simd schedule(static)
        for (std::int64_t i = 0; i < d[1]; ++i) y[i] = x[i] * scale + shift;
      }
    });
  }
  why = "a hand-written loop is the peer of the elementwise, reduction, row and concat workloads only";
  return std::nullopt;
}

}  // namespace

int main() {
  const std::string info = "g++ " __VERSION__ " -O3 -march=native -fno-trapping-math -ffp-contract=off -fopenmp, " +
                           std::to_string(omp_get_max_threads()) + " OpenMP threads";
  return bench::serve(info, prepare);
}
