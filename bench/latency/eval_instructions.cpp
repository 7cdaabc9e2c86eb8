// W11's eval (y = a*b + c over 8 f32, the expression built each time) run N times, for
// eval_instructions.sh to count instructions and heap allocations per eval under valgrind: counts
// that a loaded or noisy machine does not change, unlike the times of eval_overhead_benchmark.
//
//   build/bench/latency/eval_instructions N
#include <cstdlib>
#include <iostream>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

int main(int argc, char** argv) {
  const int evals = argc > 1 ? std::atoi(argv[1]) : 0;
  if (evals <= 0) {
    std::cerr << "usage: eval_instructions N   (N > 0 evals of a*b + c over 8 f32)\n";
    return 2;
  }
  const tj::Tensor a = tj::arange(8, tj::f32), b = a * 2.0f, c = a + 1.0f;
  tj::eval({b, c});
  tj::Tensor y;
  for (int i = 0; i < evals; ++i) {
    y = a * b + c;
    y.eval();
  }
  std::cout << y.sum().item<float>() << "\n";  // 8 * 7 * 15 / 3 + 36 = 316
  return 0;
}
