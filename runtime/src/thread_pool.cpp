#include "runtime/src/thread_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <pthread.h>
#include <system_error>
#include <thread>
#include <vector>

#include <immintrin.h>

#include <tensorjit/codegen/log.hpp>

#include "runtime/src/config.hpp"

namespace tensorjit::detail {
namespace {

thread_local bool inside_task = false;

using Clock = std::chrono::steady_clock;

// Spins until done() holds or `budget` has passed; says whether done() held. Every 64 pauses it
// reads the clock and yields the core: on a machine with more runnable threads than cores (ctest
// -j, another library's pool) the spinner gives way instead of burning its time slice, and when
// nothing else is runnable the yield costs a few hundred nanoseconds.
template <typename Done>
bool spin_until(Done done, std::chrono::microseconds budget) {
  if (budget.count() == 0) return done();
  const auto deadline = Clock::now() + budget;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      _mm_pause();
    }
    if (Clock::now() >= deadline) return done();
    std::this_thread::yield();
  }
}

// Workers wait for a job, then claim task indices from a shared counter; one job runs at a time
// (a mutex serialises callers from different user threads). A worker that finished a job spins
// for TENSORJIT_SPIN_US on the job counter before it sleeps on the condition variable, and the
// caller spins as long on the finished count: waking a sleeping thread costs tens of microseconds
// (futex, scheduler), more than a whole small kernel, while evals and GEMM calls that follow one
// another, as a user's loop makes them, find the workers still spinning.
class ThreadPool {
 public:
  // Starts threads - 1 workers, or as many as the system allows: under a memory or process limit
  // (each thread reserves a stack) std::thread throws std::system_error, which once escaped an
  // eval. The caller claims tasks too, so fewer workers, even none, still run every task.
  ThreadPool(int threads, std::chrono::microseconds spin) : spin_(spin) {
    workers_.reserve(static_cast<std::size_t>(threads));
    for (int i = 1; i < threads; ++i) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::system_error& e) {
        codegen::logger().warn(
            "could start only {} of {} pool threads ({}); running with {}; raise the "
            "process's memory or thread limit, or set TENSORJIT_THREADS to {} or fewer",
            i, threads, e.what(), i, i);
        break;
      }
    }
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  void run(std::int64_t n_tasks, const std::function<void(std::int64_t)>& task) {
    std::lock_guard serial(job_mutex_);
    task_ = &task;
    n_tasks_ = n_tasks;
    next_.store(0);
    finished_.store(0);
    error_ = nullptr;
    {
      // Under the mutex: a worker about to sleep either sees the new generation in its wait
      // predicate or is already waiting when notify_all runs.
      std::lock_guard lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    claim_tasks();
    const int workers = static_cast<int>(workers_.size());
    auto all_finished = [&] { return finished_.load(std::memory_order_acquire) == workers; };
    if (!spin_until(all_finished, spin_)) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, all_finished);
    }
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
      auto posted = [&] {
        return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(posted, spin_)) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, posted);
      }
      if (stopping_.load()) return;
      seen = generation_.load(std::memory_order_acquire);
      claim_tasks();
      {
        // Under the mutex, so that a caller that has just found the count short and is going to
        // sleep cannot miss this notification.
        std::lock_guard lock(mutex_);
        finished_.fetch_add(1, std::memory_order_release);
      }
      done_.notify_one();
    }
  }

  const std::chrono::microseconds spin_;
  std::vector<std::thread> workers_;
  std::mutex job_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::int64_t)>* task_ = nullptr;
  std::int64_t n_tasks_ = 0;
  std::atomic<std::int64_t> next_{0};
  std::atomic<int> finished_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;
};

// The process's pool, made on first use. fork() copies only the calling thread, so a child
// inherits the pool's memory without its workers: a job posted there waited forever for them.
// The fork handlers below make the child forget the parent's pool and make its own on first use;
// the parent's is never destroyed in the child, since that would join threads that do not exist
// there. Making a pool holds `pool_mutex` across fork(), so the child never inherits it locked.
std::mutex pool_mutex;
std::atomic<ThreadPool*> current_pool{nullptr};
ThreadPool* inherited_pool = nullptr;  // kept reachable, for leak checkers

void lock_pool_for_fork() { pool_mutex.lock(); }
void unlock_pool_in_parent() { pool_mutex.unlock(); }
void forget_pool_in_child() {
  inherited_pool = current_pool.exchange(nullptr);
  pool_mutex.unlock();
}

// Joins the workers at exit, as a static pool did.
struct PoolAtExit {
  ~PoolAtExit() { delete current_pool.exchange(nullptr); }
} pool_at_exit;

ThreadPool& pool() {
  if (ThreadPool* made = current_pool.load(std::memory_order_acquire)) return *made;
  [[maybe_unused]] static const int fork_handlers =
      pthread_atfork(lock_pool_for_fork, unlock_pool_in_parent, forget_pool_in_child);
  std::lock_guard lock(pool_mutex);
  ThreadPool* made = current_pool.load(std::memory_order_acquire);
  if (!made) {
    made = new ThreadPool(config().threads, std::chrono::microseconds(config().spin_microseconds));
    current_pool.store(made, std::memory_order_release);
  }
  return *made;
}

}  // namespace

int pool_threads() { return config().threads; }

kernels::ParallelFor pool_parallel_for() {
  kernels::ParallelFor pf;
  pf.threads = pool_threads();
  pf.run = [](void*, std::int64_t n, void (*task)(void*, std::int64_t), void* context) {
    parallel_for(n, [&](std::int64_t i) { task(context, i); });
  };
  return pf;
}

void parallel_for(std::int64_t n_tasks, const std::function<void(std::int64_t)>& task) {
  if (n_tasks <= 0) return;
  if (n_tasks == 1 || inside_task || pool_threads() == 1) {
    for (std::int64_t i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  pool().run(n_tasks, task);
}

}  // namespace tensorjit::detail
