// exp, log, tanh, erf, sin, cos, gelu, pow and W2 (tanh(x) * sigmoid(x) + exp(-x*x)) on 16 Mi f32, one thread:
// tensorjit (public API: a lazy expression, eval; timed after a warm-up eval that compiles) against
// glibc's scalar libm, glibc's libmvec (AVX2 and AVX-512 entry points) and NumPy. Prints the median
// ns per element of interleaved runs and each peer's worst error in ulp over the same inputs
// (against libm's double functions, within 2^-29 ulp of exact).
//
//   taskset -c 0 build/bench/vecmath/vecmath_peers [--runs 9] [--elements N] [--no-numpy]
//
// tensorjit runs with TENSORJIT_THREADS=1 unless the environment says otherwise; its times include
// allocating the output, as an eval does (NumPy's calls allocate too; the libm loops write into a
// buffer allocated once). vecmath_kernels has the same table with the kernels alone.
#include <cstdlib>
#include <string>

#include <tensorjit/tensorjit.hpp>

#include "peer_table.hpp"

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

tj::Tensor expression(const std::string& name, const tj::Tensor& x, const tj::Tensor& x2) {
  if (name == "x+1") return x + 1.0f;  // the eval's own floor: the output's allocation, the plan
  if (name == "exp") return tj::exp(x);
  if (name == "log") return tj::log(x);
  if (name == "tanh") return tj::tanh(x);
  if (name == "erf") return tj::erf(x);
  if (name == "sin") return tj::sin(x);
  if (name == "cos") return tj::cos(x);
  if (name == "gelu") return tj::gelu(x);
  if (name == "pow") return tj::pow(x, x2);
  return tj::tanh(x) * tj::sigmoid(x) + tj::exp(-(x * x));
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  setenv("TENSORJIT_THREADS", "1", 0);
  const auto numpy = options.numpy ? bench::run_numpy(options.elements, options.runs)
                                   : std::map<std::string, double>{};
  bench::print_table_header(options.elements, options.runs, "tensorjit eval");
  for (const bench::PeerCase& c : bench::peer_cases()) {
    std::vector<float> x = bench::peer_inputs(c, options.elements);
    std::vector<float> x2 = bench::peer_second_inputs(c, options.elements);
    std::vector<float> y(x.size());
    tj::Tensor input = tj::from_blob(x.data(), {options.elements}, {}, tj::f32);
    tj::Tensor input2 = c.binary ? tj::from_blob(x2.data(), {options.elements}, {}, tj::f32) : input;
    tj::Tensor kept;
    std::vector<bench::Peer> peers;
    peers.push_back({"tensorjit", [&] {
                       kept = expression(c.name, input, input2);
                       kept.eval();
                       return static_cast<const float*>(kept.data());
                     }, {}});
    for (auto& peer : bench::library_peers(c.name, x, x2, y)) peers.push_back(std::move(peer));
    bench::measure_and_print_row(c, x, x2, peers, options.runs, numpy);
  }
  return 0;
}
