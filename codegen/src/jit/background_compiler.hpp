// One thread that runs the JIT's second-tier compiles (docs/codegen.md, "Tiers"), so a kernel's
// optimized code is made while the first tier's already runs. Jobs run in the order given, one at
// a time: the machine's other cores stay with the user's work. Internal to codegen/.
//
// Exit. A job uses LLVM, whose static objects are destroyed at exit; a compile still running then
// would read freed memory. An atexit handler runs every queued job to its end and joins the
// thread, so a process that exits right after its first evals still leaves their optimized code in
// the disk cache. Handlers run in the reverse order of registration, and LLVM constructs some
// statics lazily, in its first compiles (SelectionDAG's value-type lists, X86's fold tables): a
// test that exited with tier-ups queued crashed in codegen when the handler was registered before
// them. So the JIT runs the process's first optimized compile on the calling thread and starts
// this thread only after it (jit.cpp, CompiledKernel::note_use), and the handler is registered
// again before and after each of the first jobs, for statics only a later compile makes.
#pragma once

#include <functional>

namespace tensorjit::codegen::background_compiler {

// Queues `job`; starts the thread on first use. A job must not throw (it reports its own failures).
void submit(std::function<void()> job);

// Starts the thread now if it is not running, so that the first submit (on a kernel's second use,
// in an eval) does not pay for creating it.
void start();

// Blocks until every job submitted so far has finished.
void wait_idle();

}  // namespace tensorjit::codegen::background_compiler
