#include "stream_triad.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

double stream_triad_bytes_per_second(std::int64_t n, int runs) {
  auto a = std::make_unique<double[]>(static_cast<std::size_t>(n));
  auto b = std::make_unique<double[]>(static_cast<std::size_t>(n));
  auto c = std::make_unique<double[]>(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) a[i] = 0, b[i] = 1.0 + i % 7, c[i] = 2.0 - i % 5;
  std::vector<double> seconds;
  volatile double scale = 3.0;
  for (int r = 0; r < runs; ++r) {
    const double s = scale;
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (a[n / 2] < -1e300) return 0;  // keeps the loop
  }
  std::sort(seconds.begin(), seconds.end());
  return 3.0 * 8.0 * static_cast<double>(n) / seconds[seconds.size() / 2];
}
