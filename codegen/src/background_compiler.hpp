// One thread that runs the JIT's second-tier compiles (docs/codegen.md, "Tiers"), so a kernel's
// optimized code is made while the first tier's already runs. Jobs run in the order given, one at
// a time: the machine's other cores stay with the user's work. Internal to codegen/.
//
// Exit. A job uses LLVM, whose static objects are destroyed at exit; a compile still running then
// would read freed memory. An atexit handler runs every queued job to its end and joins the
// thread, so a process that exits right after its first evals still leaves their optimized code in
// the disk cache. Handlers run in the reverse order of registration, and LLVM constructs some
// statics lazily, during the first optimized compiles (a test that exited with tier-ups queued
// crashed in codegen when the handler was registered only at the first job): the handler is
// registered again after each of the first jobs, so that it runs before those destructors.
#pragma once

#include <functional>

namespace tensorjit::codegen::background_compiler {

// Queues `job`; starts the thread on first use. A job must not throw (it reports its own failures).
void submit(std::function<void()> job);

// Blocks until every job submitted so far has finished.
void wait_idle();

}  // namespace tensorjit::codegen::background_compiler
