// The caller's parallel-for, shared by the kernels that split work over threads (gemm,
// scatter_add_rows, sort_row): kernels/ owns no threads.
#pragma once

#include <cstdint>

namespace tensorjit::kernels {

// The caller's parallel-for: kernels/ owns no threads. run(context, n_tasks, task, task_context)
// must call task(task_context, i) exactly once for every i in [0, n_tasks), in any order and on any
// threads, and return when all calls have returned. Tasks never throw (the kernels catch inside).
// `threads` is how many tasks can run at once; a kernel cuts its work into a multiple of it.
// A null `run` (the default) or threads <= 1 runs everything on the calling thread.
// A kernel calls run() only from the thread that called it, never from a task (no nested
// parallelism): gemm and scatter_add_rows once per call, sort_row once per phase of a long row.
struct ParallelFor {
  void (*run)(void* context, std::int64_t n_tasks, void (*task)(void* task_context, std::int64_t index),
              void* task_context) = nullptr;
  void* context = nullptr;
  int threads = 1;
};

}  // namespace tensorjit::kernels
