#include "runtime/src/thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/src/config.hpp"

namespace tensorjit::detail {
namespace {

thread_local bool inside_task = false;

// Workers sleep until a job is posted, then claim task indices from a shared counter. One job runs
// at a time (a mutex serialises callers from different user threads).
class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  void run(std::int64_t n_tasks, const std::function<void(std::int64_t)>& task) {
    std::lock_guard serial(job_mutex_);
    {
      std::lock_guard lock(mutex_);
      task_ = &task;
      n_tasks_ = n_tasks;
      next_.store(0);
      finished_ = 0;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    claim_tasks();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return finished_ == static_cast<int>(workers_.size()); });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void claim_tasks() {
    inside_task = true;
    for (std::int64_t i; (i = next_.fetch_add(1)) < n_tasks_;) {
      try {
        (*task_)(i);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    inside_task = false;
  }

  void work() {
    std::uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      claim_tasks();
      {
        std::lock_guard lock(mutex_);
        ++finished_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::int64_t)>* task_ = nullptr;
  std::int64_t n_tasks_ = 0;
  std::atomic<std::int64_t> next_{0};
  int finished_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

ThreadPool& pool() {
  static ThreadPool instance(config().threads);
  return instance;
}

}  // namespace

int pool_threads() { return config().threads; }

void parallel_for(std::int64_t n_tasks, const std::function<void(std::int64_t)>& task) {
  if (n_tasks <= 0) return;
  if (n_tasks == 1 || inside_task || pool_threads() == 1) {
    for (std::int64_t i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  pool().run(n_tasks, task);
}

}  // namespace tensorjit::detail
