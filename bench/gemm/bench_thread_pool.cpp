#include "bench_thread_pool.hpp"

#include <chrono>

namespace gemm_bench {

BenchThreadPool::BenchThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

BenchThreadPool::~BenchThreadPool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    generation_++;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

tensorjit::kernels::ParallelFor BenchThreadPool::parallel_for() {
  tensorjit::kernels::ParallelFor parallel_for;
  parallel_for.run = &BenchThreadPool::run;
  parallel_for.context = this;
  parallel_for.threads = threads_;
  return parallel_for;
}

void BenchThreadPool::work_on_current_job() {
  for (std::int64_t i = next_task_++; i < n_tasks_; i = next_task_++) task_(task_context_, i);
}

void BenchThreadPool::run(void* context, std::int64_t n_tasks, void (*task)(void*, std::int64_t), void* task_context) {
  auto* pool = static_cast<BenchThreadPool*>(context);
  {
    const std::lock_guard<std::mutex> lock(pool->mutex_);
    pool->n_tasks_ = n_tasks;
    pool->task_ = task;
    pool->task_context_ = task_context;
    pool->next_task_ = 0;
    pool->busy_workers_ = static_cast<int>(pool->workers_.size());
    pool->generation_++;
  }
  pool->wake_.notify_all();
  pool->work_on_current_job();
  while (pool->busy_workers_.load() != 0) std::this_thread::yield();
}

void BenchThreadPool::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin for a moment (back-to-back calls), then sleep until the next job.
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (generation_.load() == seen && std::chrono::steady_clock::now() < spin_until) {
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load() != seen; });
      seen = generation_.load();
      if (stopping_) return;
    }
    work_on_current_job();
    busy_workers_--;
  }
}

}  // namespace gemm_bench
