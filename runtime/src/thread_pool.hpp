// The one pool of worker threads, TENSORJIT_THREADS wide, shared by the JIT'd kernels and the GEMM
// (docs/contracts.md, contract 9). The caller of parallel_for works too, so a pool of n threads has
// n - 1 workers. No nesting: a task that calls parallel_for runs the inner loop on its own thread.
// A fork()ed child, which has none of the parent's threads, makes a pool of its own on first use.
#pragma once

#include <cstdint>
#include <functional>

#include <tensorjit/kernels/parallel_for.hpp>

namespace tensorjit::detail {

// Calls task(i) once for each i in [0, n_tasks), spread over the pool, and returns when all
// have returned. The first exception a task throws is rethrown here after every task finished.
void parallel_for(std::int64_t n_tasks, const std::function<void(std::int64_t)>& task);

// How many tasks run at once (TENSORJIT_THREADS).
int pool_threads();

// The pool as the parallel-for the precompiled kernels take (kernels/, which owns no threads).
kernels::ParallelFor pool_parallel_for();

// Below this many elements per task a kernel runs on the caller: waking the pool costs more.
inline constexpr std::int64_t kMinElementsPerTask = 1 << 15;

}  // namespace tensorjit::detail
