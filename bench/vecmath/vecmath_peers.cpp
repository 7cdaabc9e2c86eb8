// exp, log, tanh, erf and W2 (tanh(x) * sigmoid(x) + exp(-x*x)) on 16 Mi f32, one thread:
// tensorjit (public API: a lazy expression, eval; timed after a warm-up eval that compiles) against
// glibc's scalar libm, glibc's libmvec (AVX2 and AVX-512 entry points) and NumPy. Prints the median
// ns per element of interleaved runs and each peer's worst error in ulp over the same inputs
// (against libm's double functions, within 2^-29 ulp of exact).
//
//   taskset -c 0 build/bench/vecmath/vecmath_peers [--runs 9] [--elements N] [--no-numpy]
//
// tensorjit runs with TENSORJIT_THREADS=1 unless the environment says otherwise; its times include
// allocating the output, as an eval does (NumPy's calls allocate too; the libm loops write into a
// buffer allocated once).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "loops.hpp"

namespace tj = tensorjit;
namespace bench = tensorjit::bench;

namespace {

struct Options {
  int runs = 9;
  std::int64_t elements = std::int64_t{16} << 20;
  bool numpy = true;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-numpy") options.numpy = false;
    else if (flag == "--runs" && i + 1 < argc) options.runs = std::stoi(argv[++i]);
    else if (flag == "--elements" && i + 1 < argc) options.elements = std::stoll(argv[++i]) / 16 * 16;
    else std::fprintf(stderr, "ignored argument %s\n", argv[i]);
  }
  return options;
}

struct Case {
  std::string name;
  double lowest, highest;
  bool log_uniform;                        // exp(uniform) instead of uniform
  std::function<double(double)> exact;     // the double reference
  std::function<tj::Tensor(const tj::Tensor&)> expression;
  bool ulp_meaningful = true;              // W2 crosses zero: relative errors there mean nothing
};

std::vector<Case> cases() {
  auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  return {
      // The eval's own floor: a memory-bound kernel, the output's allocation and the plan.
      {"x+1", -5, 5, false, [](double x) { return x + 1; }, [](const tj::Tensor& x) { return x + 1.0f; }},
      {"exp", -87, 88, false, [](double x) { return std::exp(x); }, [](const tj::Tensor& x) { return tj::exp(x); }},
      {"log", -69, 69, true, [](double x) { return std::log(x); }, [](const tj::Tensor& x) { return tj::log(x); }},
      {"tanh", -9, 9, false, [](double x) { return std::tanh(x); }, [](const tj::Tensor& x) { return tj::tanh(x); }},
      {"erf", -4, 4, false, [](double x) { return std::erf(x); }, [](const tj::Tensor& x) { return tj::erf(x); }},
      {"w2", -5, 5, false,
       [=](double x) {
         // The f32 formula's own roundings are not part of this reference: W2's error column
         // compares to the exact function, which no peer computes exactly.
         return std::tanh(x) * sigmoid(x) + std::exp(-x * x);
       },
       [](const tj::Tensor& x) { return tj::tanh(x) * tj::sigmoid(x) + tj::exp(-(x * x)); }, false},
  };
}

double ulp_error(float actual, double exact) {
  if (std::isnan(exact) || std::isnan(actual)) return std::isnan(exact) == std::isnan(actual) ? 0 : INFINITY;
  if (std::isinf(static_cast<float>(exact)) || std::isinf(actual)) return actual == static_cast<float>(exact) ? 0 : INFINITY;
  int exponent = 0;
  std::frexp(exact, &exponent);
  const int ulp_exponent = exact == 0 ? -149 : std::max(exponent - 24, -149);
  return std::ldexp(std::fabs(static_cast<double>(actual) - exact), -ulp_exponent);
}

double max_error(const float* y, const std::vector<double>& exact) {
  double worst = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) worst = std::max(worst, ulp_error(y[i], exact[i]));
  return worst;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::map<std::string, double> run_numpy(const Options& options) {
  std::map<std::string, double> result;
  const std::string script = std::string(TENSORJIT_VECMATH_SOURCE_DIR) + "/numpy_peer.py";
  const std::string command = "/usr/bin/python3 " + script + " " + std::to_string(options.elements) +
                              " " + std::to_string(options.runs);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char name[32];
  double ns;
  while (std::fscanf(pipe, "%31s %lf", name, &ns) == 2) result[name] = ns;
  pclose(pipe);
  return result;
}

struct Peer {
  std::string name;
  std::function<const float*()> run;  // computes y, returns it
  std::vector<double> seconds;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  setenv("TENSORJIT_THREADS", "1", 0);
  const auto numpy = options.numpy ? run_numpy(options) : std::map<std::string, double>{};
  const auto n = options.elements;
  std::printf("%lld f32 elements, median of %d runs, ns/element (worst error in ulp)\n\n",
              static_cast<long long>(n), options.runs);
  std::printf("| op   | tensorjit       | glibc libm      | libmvec AVX2    | libmvec AVX-512 | NumPy | libmvec best / tensorjit | NumPy / tensorjit |\n");
  std::printf("|------|-----------------|-----------------|-----------------|-----------------|-------|---------|---------|\n");
  for (const Case& c : cases()) {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> uniform(c.lowest, c.highest);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& value : x) value = static_cast<float>(c.log_uniform ? std::exp(uniform(rng)) : uniform(rng));
    std::vector<double> exact(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) exact[i] = c.exact(x[i]);
    std::vector<float> y(x.size());

    tj::Tensor input = tj::from_blob(x.data(), {n}, {}, tj::f32);
    tj::Tensor kept;
    std::vector<Peer> peers;
    peers.push_back({"tensorjit", [&] {
                       kept = c.expression(input);
                       kept.eval();
                       return static_cast<const float*>(kept.data());
                     }, {}});
    for (auto [peer, loop] : {std::pair{"libm", bench::scalar_libm_loop(c.name)},
                              std::pair{"avx2", bench::libmvec_avx2_loop(c.name)},
                              std::pair{"avx512", bench::libmvec_avx512_loop(c.name)}}) {
      if (loop == nullptr) continue;
      peers.push_back({peer, [&, loop = loop] {
                         loop(x.data(), y.data(), n);
                         return static_cast<const float*>(y.data());
                       }, {}});
    }
    std::map<std::string, double> errors;
    for (auto& peer : peers) errors[peer.name] = max_error(peer.run(), exact);  // warm-up too
    for (int run = 0; run < options.runs; ++run) {
      for (auto& peer : peers) {
        const auto start = std::chrono::steady_clock::now();
        peer.run();
        peer.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
    std::map<std::string, double> ns;
    for (auto& peer : peers) ns[peer.name] = median(peer.seconds) / static_cast<double>(n) * 1e9;
    auto cell = [&](const char* name) {
      if (!ns.count(name)) return std::string("—");
      char text[48];
      if (c.ulp_meaningful) std::snprintf(text, sizeof text, "%.3f (%.2f)", ns[name], errors[name]);
      else std::snprintf(text, sizeof text, "%.3f", ns[name]);
      return std::string(text);
    };
    double best_libmvec = INFINITY;
    for (const char* name : {"avx2", "avx512"})
      if (ns.count(name)) best_libmvec = std::min(best_libmvec, ns[name]);
    const double numpy_ns = numpy.count(c.name) ? numpy.at(c.name) : NAN;
    if (!std::isfinite(best_libmvec)) best_libmvec = NAN;
    std::printf("| %-4s | %-15s | %-15s | %-15s | %-15s | %5.2f | %7.2f | %7.1f |\n", c.name.c_str(),
                cell("tensorjit").c_str(), cell("libm").c_str(), cell("avx2").c_str(),
                cell("avx512").c_str(), numpy_ns, best_libmvec / ns["tensorjit"],
                numpy_ns / ns["tensorjit"]);
  }
  return 0;
}
