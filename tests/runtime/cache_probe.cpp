// Evaluates W1 once and prints what the JIT did: the disk cache test runs it in fresh processes.
#include <iostream>
#include <tensorjit/tensorjit.hpp>

int main() {
  namespace tj = tensorjit;
  auto a = tj::linspace(-1.0, 1.0, 1000);
  auto b = tj::linspace(2.0, 3.0, 1000);
  auto c = tj::linspace(0.5, -0.5, 1000);
  a.eval();
  b.eval();
  c.eval();
  auto y = tj::maximum(a * b + c, 0.0f) * 0.5f;
  double checksum = y.sum().item<float>();
  auto stats = tj::jit_statistics();
  std::cout << "compiles=" << stats.compiles << " disk_hits=" << stats.disk_hits
            << " disk_rejects=" << stats.disk_rejects << " checksum=" << checksum << "\n";
}
