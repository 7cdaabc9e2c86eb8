// What vecmath_peers and vecmath_kernels share: the cases (exp, log, tanh, erf, sin, cos, gelu,
// pow, W2 and the x + 1 floor, with their input ranges and double references), the peers' loops over them (glibc's
// scalar libm, libmvec's AVX2 and AVX-512 entry points, NumPy through numpy_peer.py), the
// interleaved timing and the printed table. Each program adds its own tensorjit column.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "loops.hpp"

namespace tensorjit::bench {

struct PeerCase {
  std::string name;
  double lowest, highest;
  bool log_uniform;                             // exp(uniform) instead of uniform
  std::function<double(double, double)> exact;  // the double reference (libm: within 2^-29 ulp
                                                // of f32), of x and the second operand
  bool ulp_meaningful = true;                   // W2 crosses zero: relative errors there mean nothing
  bool binary = false;                          // pow: a second operand, uniform on [-10, 10]
};

inline std::vector<PeerCase> peer_cases() {
  auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  return {
      {"x+1", -5, 5, false, [](double x, double) { return x + 1; }},
      {"exp", -87, 88, false, [](double x, double) { return std::exp(x); }},
      {"log", -69, 69, true, [](double x, double) { return std::log(x); }},
      {"tanh", -9, 9, false, [](double x, double) { return std::tanh(x); }},
      {"erf", -4, 4, false, [](double x, double) { return std::erf(x); }},
      {"sin", -100, 100, false, [](double x, double) { return std::sin(x); }},
      {"cos", -100, 100, false, [](double x, double) { return std::cos(x); }},
      // The erf form with the f32 constant of ir/scalar_ops.hpp, as the op defines it.
      {"gelu", -5, 5, false,
       [](double x, double) { return 0.5 * x * std::erfc(-x * static_cast<double>(0.70710678118654752f)); }},
      // x log-uniform on [e^-5, e^5], y uniform on [-10, 10]: results within e^+-50.
      {"pow", -5, 5, true, [](double x, double y) { return std::pow(x, y); }, true, true},
      // The f32 formula's own roundings are not part of this reference: W2's error column would
      // compare to the exact function, which no peer computes exactly.
      {"w2", -5, 5, false,
       [=](double x, double) { return std::tanh(x) * sigmoid(x) + std::exp(-x * x); }, false},
  };
}

// The second operand of a binary case (empty for the others).
inline std::vector<float> peer_second_inputs(const PeerCase& c, std::int64_t count) {
  if (!c.binary) return {};
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> uniform(-10, 10);
  std::vector<float> y(static_cast<std::size_t>(count));
  for (auto& value : y) value = static_cast<float>(uniform(rng));
  return y;
}

inline std::vector<float> peer_inputs(const PeerCase& c, std::int64_t count) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uniform(c.lowest, c.highest);
  std::vector<float> x(static_cast<std::size_t>(count));
  for (auto& value : x) value = static_cast<float>(c.log_uniform ? std::exp(uniform(rng)) : uniform(rng));
  return x;
}

// |actual - exact| in ulp of f32 at `exact` (subnormal ulp below the normal range).
inline double ulp_error(float actual, double exact) {
  if (std::isnan(exact) || std::isnan(actual)) return std::isnan(exact) == std::isnan(actual) ? 0 : INFINITY;
  if (std::isinf(static_cast<float>(exact)) || std::isinf(actual)) return actual == static_cast<float>(exact) ? 0 : INFINITY;
  int exponent = 0;
  std::frexp(exact, &exponent);
  const int ulp_exponent = exact == 0 ? -149 : std::max(exponent - 24, -149);
  return std::ldexp(std::fabs(static_cast<double>(actual) - exact), -ulp_exponent);
}

// NumPy's (and SciPy's erf) ns per element by case name, from numpy_peer.py (/usr/bin/python3).
inline std::map<std::string, double> run_numpy(std::int64_t elements, int runs) {
  std::map<std::string, double> result;
  const std::string script = std::string(TENSORJIT_VECMATH_SOURCE_DIR) + "/numpy_peer.py";
  const std::string command = "/usr/bin/python3 " + script + " " + std::to_string(elements) + " " +
                              std::to_string(runs);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char name[32];
  double ns;
  while (std::fscanf(pipe, "%31s %lf", name, &ns) == 2) result[name] = ns;
  pclose(pipe);
  return result;
}

// One column of the table: `run` computes y over the case's inputs and returns it.
struct Peer {
  std::string name;
  std::function<const float*()> run;
  std::vector<double> seconds;
};

// The peers of a case besides tensorjit: libm, libmvec AVX2 and AVX-512 where they have the
// function, of x (and x2 for pow), writing into `y` (allocated once).
inline std::vector<Peer> library_peers(const std::string& name, const std::vector<float>& x,
                                       const std::vector<float>& x2, std::vector<float>& y) {
  std::vector<Peer> peers;
  for (auto [peer, loop] : {std::pair{"libm", scalar_libm_loop(name)},
                            std::pair{"avx2", libmvec_avx2_loop(name)},
                            std::pair{"avx512", libmvec_avx512_loop(name)}}) {
    if (loop == nullptr) continue;
    peers.push_back({peer, [&x, &x2, &y, loop = loop] {
                       loop(x.data(), x2.data(), y.data(), static_cast<std::int64_t>(x.size()));
                       return static_cast<const float*>(y.data());
                     }, {}});
  }
  return peers;
}

inline void print_table_header(std::int64_t elements, int runs, const char* tensorjit_column) {
  std::printf("%lld f32 elements, median of %d runs, ns/element (worst error in ulp)\n\n",
              static_cast<long long>(elements), runs);
  std::printf("| op   | %-15s | glibc libm      | libmvec AVX2    | libmvec AVX-512 | NumPy | libmvec best / tensorjit | NumPy / tensorjit |\n",
              tensorjit_column);
  std::printf("|------|-----------------|-----------------|-----------------|-----------------|-------|---------|---------|\n");
}

// Times `peers` (the first is tensorjit's) interleaved over `runs` after a warm-up that measures
// each one's worst error, and prints the case's row.
inline void measure_and_print_row(const PeerCase& c, const std::vector<float>& x,
                                  const std::vector<float>& x2, std::vector<Peer>& peers, int runs,
                                  const std::map<std::string, double>& numpy) {
  std::vector<double> exact(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) exact[i] = c.exact(x[i], x2.empty() ? 0.0 : x2[i]);
  std::map<std::string, double> errors;
  for (auto& peer : peers) {
    const float* y = peer.run();
    double worst = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) worst = std::max(worst, ulp_error(y[i], exact[i]));
    errors[peer.name] = worst;
  }
  for (int run = 0; run < runs; ++run) {
    for (auto& peer : peers) {
      const auto start = std::chrono::steady_clock::now();
      peer.run();
      peer.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::map<std::string, double> ns;
  for (auto& peer : peers) {
    std::sort(peer.seconds.begin(), peer.seconds.end());
    ns[peer.name] = peer.seconds[peer.seconds.size() / 2] / static_cast<double>(x.size()) * 1e9;
  }
  auto cell = [&](const std::string& name) {
    if (!ns.count(name)) return std::string("—");
    char text[48];
    if (c.ulp_meaningful) std::snprintf(text, sizeof text, "%.3f (%.2f)", ns[name], errors[name]);
    else std::snprintf(text, sizeof text, "%.3f", ns[name]);
    return std::string(text);
  };
  const std::string& tensorjit = peers.front().name;
  double best_libmvec = NAN;
  for (const char* name : {"avx2", "avx512"})
    if (ns.count(name)) best_libmvec = std::isnan(best_libmvec) ? ns[name] : std::min(best_libmvec, ns[name]);
  const double numpy_ns = numpy.count(c.name) ? numpy.at(c.name) : NAN;
  std::printf("| %-4s | %-15s | %-15s | %-15s | %-15s | %5.2f | %7.2f | %7.1f |\n", c.name.c_str(),
              cell(tensorjit).c_str(), cell("libm").c_str(), cell("avx2").c_str(),
              cell("avx512").c_str(), numpy_ns, best_libmvec / ns[tensorjit], numpy_ns / ns[tensorjit]);
}

}  // namespace tensorjit::bench
