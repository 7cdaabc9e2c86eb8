// A small persistent thread pool that hands tensorjit's GEMM a ParallelFor, the way the runtime's
// pool does: the caller takes part, workers spin briefly and then sleep between calls.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "tensorjit/kernels/gemm.hpp"

namespace gemm_bench {

class BenchThreadPool {
 public:
  explicit BenchThreadPool(int threads);
  ~BenchThreadPool();
  BenchThreadPool(const BenchThreadPool&) = delete;
  BenchThreadPool& operator=(const BenchThreadPool&) = delete;

  tensorjit::kernels::ParallelFor parallel_for();

 private:
  static void run(void* context, std::int64_t n_tasks, void (*task)(void*, std::int64_t), void* task_context);
  void work_on_current_job();
  void worker_loop();

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::int64_t> next_task_{0};
  std::atomic<int> busy_workers_{0};
  std::atomic<bool> stopping_{false};
  std::int64_t n_tasks_ = 0;
  void (*task_)(void*, std::int64_t) = nullptr;
  void* task_context_ = nullptr;
};

}  // namespace gemm_bench
