// One core's read bandwidth from each level of the memory hierarchy: a buffer of each size read
// again and again with vector loads into independent sums, best pass of several. Where a size fits
// (L2, L3, memory) tells what a kernel streaming that many bytes can get at best: MiniLM's weight
// panels (42.5 MB) come from L3 on a machine with a large one (docs/gemm.md, "Prefetching B").
//
//   read_bandwidth [MiB ...]        (default: 1 8 24 42 96 400; run it pinned: taskset -c 1)
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Sums the buffer as 8 independent 64-byte lanes, so that the adds never wait on one another.
float sum_lines(const float* data, std::size_t floats) {
  float sums[8][16] = {};
  for (std::size_t i = 0; i + 128 <= floats; i += 128)
    for (int line = 0; line < 8; ++line)
      for (int j = 0; j < 16; ++j) sums[line][j] += data[i + 16 * line + j];
  float total = 0;
  for (auto& line : sums)
    for (float v : line) total += v;
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> mebibytes;
  for (int i = 1; i < argc; ++i) mebibytes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (mebibytes.empty()) mebibytes = {1, 8, 24, 42, 96, 400};
  for (const std::size_t mib : mebibytes) {
    const std::size_t bytes = mib << 20;
    auto* data = static_cast<float*>(std::aligned_alloc(2 << 20, bytes));
    if (data == nullptr) return 1;
    madvise(data, bytes, MADV_HUGEPAGE);  // as the kernels' packed weights (a hint)
    std::fill(data, data + bytes / sizeof(float), 1.0f);
    const int passes = static_cast<int>(std::max<std::size_t>(3, (std::size_t{2} << 30) / bytes));
    double best = 1e30;
    float check = 0;
    for (int pass = 0; pass < passes; ++pass) {
      const auto start = std::chrono::steady_clock::now();
      check += sum_lines(data, bytes / sizeof(float));
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("%5zu MiB: %6.1f GB/s (checksum %g)\n", mib, static_cast<double>(bytes) / best * 1e-9,
                static_cast<double>(check));
    std::free(data);
  }
}
