// A C++ callable run through the caller's parallel-for (parallel_for.hpp), which takes plain
// function pointers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tensorjit/kernels/parallel_for.hpp"

namespace tensorjit::kernels {
namespace {

// Calls task(i) once for every i in [0, n_tasks): through `parallel_for` when it has a pool of more
// than one thread and there is more than one task, else on this thread in increasing order. The
// task must not throw (parallel_for.hpp).
template <class Task> void run_tasks(const ParallelFor& parallel_for, std::int64_t n_tasks, Task&& task) {
  if (parallel_for.run == nullptr || parallel_for.threads <= 1 || n_tasks <= 1) {
    for (std::int64_t i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  using Callable = std::remove_reference_t<Task>;
  parallel_for.run(
      parallel_for.context, n_tasks,
      [](void* context, std::int64_t index) { (*static_cast<Callable*>(context))(index); },
      const_cast<void*>(static_cast<const void*>(&task)));
}

}  // namespace
}  // namespace tensorjit::kernels
