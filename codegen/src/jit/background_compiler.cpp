#include "codegen/src/jit/background_compiler.hpp"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace tensorjit::codegen::background_compiler {
namespace {

void drain_and_stop();

// How many times the exit handler is registered again after a job (below): enough to cover the
// first compiles at the optimized level, which construct what LLVM makes lazily; bounded so a
// long-running process does not grow its exit list.
constexpr int kExitRegistrations = 64;

struct Worker {
  std::mutex mutex;
  int exit_registrations = 0;
  std::condition_variable changed;
  std::deque<std::function<void()>> queue;
  bool running_job = false;
  bool stopping = false;
  std::thread thread;

  // Static objects LLVM constructs lazily register their destructors when first used; at exit
  // those registered after our handler run first, under a compile that may still need them.
  // Registering again (before and after each of the first jobs) puts the handler after them.
  // Caller holds the mutex.
  void register_exit_handler() {
    if (stopping || exit_registrations >= kExitRegistrations) return;
    ++exit_registrations;
    std::atexit(drain_and_stop);
  }

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and nothing left
      std::function<void()> job = std::move(queue.front());
      queue.pop_front();
      running_job = true;
      register_exit_handler();
      lock.unlock();
      job();
      lock.lock();
      running_job = false;
      register_exit_handler();
      changed.notify_all();
    }
  }
};

// Deliberately never destroyed: the atexit handler below stops and joins its thread instead.
Worker* instance = nullptr;

// fork() copies only the calling thread, so a child gets the worker without its thread. Joining
// that handle at exit waited forever: the child's next thread (a pool worker) reuses the dead
// thread's stack and so its handle. The child makes a worker of its own, and leaves the parent's,
// whose mutex another thread may hold, untouched. Jobs queued in the parent do not run in the
// child: those kernels keep their first-tier code there.
void make_own_worker_in_child() { instance = new Worker; }

Worker& worker() {
  [[maybe_unused]] static const bool made = [] {
    instance = new Worker;
    pthread_atfork(nullptr, nullptr, make_own_worker_in_child);
    return true;
  }();
  return *instance;
}

// Runs at exit (possibly several times: see kExitRegistrations; the first does the work).
void drain_and_stop() {
  Worker& w = worker();
  {
    std::lock_guard lock(w.mutex);
    if (w.stopping) return;
    w.stopping = true;
  }
  w.changed.notify_all();
  if (w.thread.joinable()) w.thread.join();
}

// Caller holds the worker's mutex.
void start_locked(Worker& w) {
  if (w.thread.joinable() || w.stopping) return;
  w.thread = std::thread([&w] { w.loop(); });
  w.register_exit_handler();
}

}  // namespace

void submit(std::function<void()> job) {
  Worker& w = worker();
  {
    std::lock_guard lock(w.mutex);
    if (w.stopping) return;  // exiting: a compile started now could outlive LLVM's statics
    w.queue.push_back(std::move(job));
    start_locked(w);
  }
  w.changed.notify_all();
}

void start() {
  Worker& w = worker();
  std::lock_guard lock(w.mutex);
  start_locked(w);
}

void wait_idle() {
  Worker& w = worker();
  std::unique_lock lock(w.mutex);
  w.changed.wait(lock, [&] { return w.queue.empty() && !w.running_job; });
}

}  // namespace tensorjit::codegen::background_compiler
