// Parallel-fors (kernels/include/tensorjit/kernels/parallel_for.hpp) for the kernels' tests: a
// kernel's result must not depend on the order or the threads its tasks run on.
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace kernel_tests {

// Runs the tasks last to first on the calling thread.
inline void reversed(void*, std::int64_t n, void (*task)(void*, std::int64_t), void* context) {
  for (std::int64_t i = n; i-- > 0;) task(context, i);
}

// Runs each task on a thread of its own.
inline void threaded(void*, std::int64_t n, void (*task)(void*, std::int64_t), void* context) {
  std::vector<std::thread> threads;
  for (std::int64_t i = 0; i < n; ++i) threads.emplace_back([=] { task(context, i); });
  for (auto& thread : threads) thread.join();
}

}  // namespace kernel_tests
