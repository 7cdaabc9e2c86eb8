// The JIT facade: compiles LLVM modules to host code once per kernel key, with an in-memory cache,
// an optional on-disk cache and optional dumps. LLVM-free; the builder type that fills a module
// lives in codegen/src/jit/module_builder.hpp, so only code inside codegen/ can call get_or_compile.
//
// Process model. One ORC LLJIT serves the whole process; it is created on the first Jit's
// construction and never destroyed (kernels may be referenced from static destructors of other
// folders). Each Jit instance owns its caches and options; each compiled kernel lives in its own
// JITDylib, so kernels never clash on symbol names and evicting one frees exactly its code.
//
// Threads. Every member function may be called from any number of threads at once. Compiles run
// on the calling thread, concurrently, each in its own LLVMContext with a TargetMachine taken from
// a pool (a TargetMachine is not thread safe). Two threads asking for the same key compile once:
// the second waits for the first and gets the same kernel.
//
// Optimization (see docs/codegen.md for the figures behind these choices): the IR pipeline is
// function(instcombine, simplifycfg), no loop unrolling (kernels unroll themselves); codegen at
// CodeGenOptLevel::Default; small code model; no fast-math flags and FP op fusion Strict, so a
// multiply followed by an add stays two roundings (docs/contracts.md, contract 4).
//
// Tiers (JitOptions::tiered, docs/codegen.md "Tiers"). A kernel is first compiled quickly
// (CodeGenOptLevel::None: FastISel, fast register allocation); when it is used a second time, the
// same IR is compiled again at Default on a background thread, and the handle's address switches
// to that code once it is linked. Both tiers compute the same bits (codegen levels do not change
// floating-point semantics here: no fast-math, no contraction); only their speed differs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <tensorjit/codegen/target.hpp>

namespace tensorjit::codegen {

class ModuleBuilder;  // codegen/src/jit/module_builder.hpp: fills an llvm::Module

// What identifies a kernel's code: the caller's structural key (ops, dtypes, layout classes...).
// The JIT adds everything else that changes the code (width, CPU, LLVM and project versions,
// optimization levels) when it keys the disk cache, so `text` need not repeat those.
struct KernelKey {
  std::string text;
  // Whether the kernel may start in the quick tier when the Jit is tiered. Flat loop kernels may:
  // they are mostly memory-bound, and quick code ran W1 as fast. Reduce, row and tile (epilogue)
  // kernels are compiled optimized at once: their quick code ran 2-4x slower
  // (bench/reductions/reductions_peers), and the hot loops using them are often over before a
  // background compile of 100+ ms finishes.
  bool may_start_quick = true;
};

// Asks for <folder>/<kernel_name>.ll (IR as built), .opt.ll (after the pipeline) and .s (the
// disassembly of exactly the object the JIT linked, through LLVM's MC disassembler). The folder is
// created if missing. A failure to write is reported once per folder on stderr, never thrown.
// When the kernel comes from a cache, the .s is still from the linked object, and the two .ll
// files are made by running the same builder and pipeline again on a fresh module.
struct DumpRequest {
  std::filesystem::path folder;
  std::string kernel_name;
};

enum class CodeTier : std::uint8_t {
  quick,      // CodeGenOptLevel::None
  optimized,  // CodeGenOptLevel::Default
};

struct JitOptions {
  // Kernels are built at this width; nullopt means the host's native width.
  std::optional<int> vector_bits;
  // The on-disk cache directory (the runtime passes TENSORJIT_CACHE_DIR); empty means none.
  std::filesystem::path cache_dir;
  // In-memory bound, in kernels. Past it the least recently used kernel leaves the cache, and its
  // code is freed (through its ORC resource tracker) once no CompiledKernel handle holds it. At
  // roughly 8-16 KiB of JIT memory per small kernel, the default bounds the code at ~16 MiB.
  std::size_t memory_cache_capacity = 1024;
  // Compile in two tiers (above). Off: every kernel is compiled once, optimized, on the calling
  // thread. Kernels asked for with a DumpRequest are always compiled optimized at once, so their
  // dumps show the code that runs.
  bool tiered = false;
  // Name every kernel linked from now on in /tmp/perf-<pid>.map, where Linux perf looks for the
  // names of JIT'd code (the runtime passes TENSORJIT_PERF_MAP). Process-wide: once one Jit asks,
  // the kernels of every Jit of the process are named.
  bool perf_map = false;
};

// One linked kernel. Its code stays mapped while any handle to it lives, even after eviction, so
// a thread running a kernel is never left with a dangling address (with tiers, both tiers' code
// stays mapped: a thread may still run the first while the second is installed).
class CompiledKernel : public std::enable_shared_from_this<CompiledKernel> {
 public:
  struct Private;
  explicit CompiledKernel(std::unique_ptr<Private> state);
  ~CompiledKernel();
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  // The current code: the best tier linked so far.
  void* address() const { return address_.load(std::memory_order_acquire); }
  // The code to run for one use of the kernel; a use is what makes a quick kernel tier up.
  template <typename Function>
  Function* as() const {
    if (tier_up_pending_.load(std::memory_order_relaxed)) note_use();
    return reinterpret_cast<Function*>(address());
  }
  CodeTier tier() const;
  // Blocks until no tier-up is pending or running for this kernel: at once when it is optimized,
  // or was never going to be. Runs a tier-up not yet started on this thread.
  void wait_for_final_tier() const;
  const std::string& symbol() const;
  // How this handle's code got here: compiled in this process, or loaded from the disk cache.
  bool loaded_from_disk() const;
  // For codegen/ only (Private is defined there).
  const Private& internals() const { return *state_; }

 private:
  void note_use() const;
  mutable std::atomic<void*> address_;
  mutable std::atomic<bool> tier_up_pending_{false};
  std::unique_ptr<Private> state_;
};

using KernelHandle = std::shared_ptr<const CompiledKernel>;

// Counters of one Jit instance.
struct JitStats {
  std::uint64_t compiles = 0;      // modules built, optimized and code-generated
  std::uint64_t memory_hits = 0;   // served from the in-memory cache
  std::uint64_t disk_hits = 0;     // object loaded from the disk cache instead of compiling
  std::uint64_t disk_writes = 0;   // cache files written
  std::uint64_t disk_rejects = 0;  // cache files found corrupt, truncated or foreign (ignored)
  // cache files deleted because a process died while it ran them (disk_cache_journal.hpp)
  std::uint64_t disk_quarantined = 0;
  std::uint64_t evictions = 0;     // kernels dropped from the in-memory cache by its bound
  std::uint64_t tier_ups = 0;      // quick kernels compiled again, optimized (not in `compiles`)
};

class Jit {
 public:
  // Throws tensorjit::Error on a bad vector width, tensorjit::InternalError if LLVM cannot make a
  // JIT for this host.
  explicit Jit(JitOptions options = {});
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  // The kernel for `key`: from memory, else from the disk cache, else built by `build` (which
  // must define a function named `symbol` in the module it is given), optimized, compiled and
  // linked. `dump`, when given, writes that kernel's files (see DumpRequest).
  // Exceptions thrown by `build` reach the caller unchanged; LLVM failures (an invalid module, a
  // link error) throw tensorjit::InternalError with LLVM's message. A failed compile is not cached.
  KernelHandle get_or_compile(const KernelKey& key, std::string_view symbol,
                              const ModuleBuilder& build, const DumpRequest* dump = nullptr);

  const TargetDescription& target() const;
  const JitOptions& options() const;
  JitStats stats() const;
  std::size_t cached_kernel_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Modules compiled (built, optimized, code-generated) by every Jit of this process; a test shows
// that a second eval compiles nothing by reading it before and after. Tier-ups are not counted.
std::uint64_t compile_count();

// Blocks until every tier-up of the process asked for so far is linked (tests, benchmarks).
void wait_for_tier_ups();

}  // namespace tensorjit::codegen
