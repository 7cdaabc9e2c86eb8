// Names the JIT's kernels for Linux perf. perf finds code outside every ELF file by the process's
// /tmp/perf-<pid>.map, one line per function: "<start> <size> <name>", both numbers in hex
// (perf's Documentation/jit-interface.txt). Without it a profile shows a JIT'd kernel as bare
// addresses. Internal to codegen/.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace tensorjit::codegen {

// From now on, every function JITLink links into `lljit` (compiled, or loaded from the disk
// cache) gets its line in /tmp/perf-<pid>.map as soon as its addresses are final. Idempotent.
// Lines are never removed: a freed kernel's range may later hold another kernel, whose line comes
// after it, and perf takes the last line that covers an address. Throws tensorjit::Error when the
// file cannot be opened.
void write_perf_map(llvm::orc::LLJIT& lljit);

}  // namespace tensorjit::codegen
