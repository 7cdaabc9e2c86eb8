// The Jit facade: the in-memory cache (compile once per key, bounded, LRU eviction), the disk
// cache flow, dumps and the per-kernel log line. The LLVM side lives in jit_engine.cpp.
#include <tensorjit/codegen/jit.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/error.hpp>
#include <tensorjit/ir/check.hpp>

#include "codegen/src/jit/background_compiler.hpp"
#include "codegen/src/jit/compile_session.hpp"
#include "codegen/src/jit/disassemble.hpp"
#include "codegen/src/jit/disk_cache.hpp"
#include "codegen/src/jit/disk_cache_journal.hpp"
#include "codegen/src/jit/dump_files.hpp"
#include "codegen/src/jit/jit_engine.hpp"
#include "codegen/src/jit/perf_map.hpp"
#include "codegen/src/jit/module_builder.hpp"
#include "codegen/src/jit/optimization_pipeline.hpp"
#include "codegen/src/jit/warn_once.hpp"

namespace tensorjit::codegen {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<std::uint64_t> process_compiles{0};
// A quick kernel tiers up on this use (the first is the one it was compiled for).
constexpr int kUsesBeforeTierUp = 2;
// Set once the process has compiled a kernel optimized on a user's thread (see
// CompiledKernel::note_use).
std::atomic<bool> first_tier_up_done{false};
std::atomic<std::uint64_t> dylib_counter{0};

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string short_hash(const std::string& text) {
  return fmt::format("{:016x}", llvm::xxh3_64bits(llvm::StringRef(text)));
}

// A JITDylib of its own for one kernel: names never clash, and removing it frees the kernel.
llvm::orc::JITDylib& create_kernel_dylib(llvm::orc::LLJIT& lljit) {
  auto dylib = lljit.createJITDylib(fmt::format("tensorjit.kernel.{}", ++dylib_counter));
  if (!dylib) throw InternalError("cannot create a JITDylib: " + llvm::toString(dylib.takeError()));
  return *dylib;
}

void remove_dylib(llvm::orc::JITDylib& dylib) noexcept {
  auto error = JitEngine::instance().lljit().getExecutionSession().removeJITDylib(dylib);
  if (!error) return;
  const std::string message = llvm::toString(std::move(error));
  try {
    logger().error("freeing a kernel's code failed: {}", message);
  } catch (...) {
    // Runs in destructors: a failure to log cannot be reported anywhere else.
  }
}

// Adds code to `dylib` with `add`, then looks `symbol` up, which (for IR) runs the layers on this
// thread. On failure the dylib is removed and the error thrown: the exception our own code raised
// inside a layer if there was one, else tensorjit::InternalError with LLVM's message.
template <typename Add>
void* add_and_look_up(llvm::orc::JITDylib& dylib, std::string_view symbol, Add&& add,
                      const CompileSession* session) {
  auto& lljit = JitEngine::instance().lljit();
  take_reported_errors();  // only this compile's reports below
  auto fail = [&](llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    if (const std::string reported = take_reported_errors(); !reported.empty())
      message += " (" + reported + ")";
    remove_dylib(dylib);
    if (session && session->failure) std::rethrow_exception(session->failure);
    throw InternalError(fmt::format("JIT of kernel '{}' failed: {}", symbol, message));
  };
  if (auto error = add()) fail(std::move(error));
  auto address = lljit.lookup(dylib, llvm::StringRef(symbol.data(), symbol.size()));
  if (!address) fail(address.takeError());
  return address->toPtr<void*>();
}

// docs/contracts.md, contract 4: results are bit-exact with the interpreter, so no instruction may
// carry a fast-math flag (even `contract` alone lets the backend fuse a multiply and an add).
void reject_fast_math(const llvm::Module& module, std::string_view symbol) {
  for (const auto& function : module) {
    for (const auto& instruction : llvm::instructions(function)) {
      if (!llvm::isa<llvm::FPMathOperator>(instruction)) continue;
      TJ_INTERNAL_CHECK(!instruction.getFastMathFlags().any())
          << "kernel '" << symbol << "' has an instruction with fast-math flags in "
          << function.getName().str() << " (results must be bit-exact)";
    }
  }
}

// One module compiled and linked into a JITDylib of its own.
struct Linked {
  void* address = nullptr;
  llvm::orc::JITDylib* dylib = nullptr;
  std::string object;
  double optimize_ms = 0;
  double codegen_ms = 0;
};

Linked link_module(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                   std::string_view symbol, CodeTier tier, const DumpRequest* dump) {
  JitEngine& engine = JitEngine::instance();
  CompileSession session;
  session.dump = dump;
  session.tier = tier;
  ScopedCompileSession registration(engine.registry(), session_id(*module), session);
  auto& lljit = engine.lljit();
  Linked linked;
  linked.dylib = &create_kernel_dylib(lljit);
  linked.address = add_and_look_up(
      *linked.dylib, symbol,
      [&] {
        return lljit.addIRModule(*linked.dylib,
                                 llvm::orc::ThreadSafeModule(std::move(module), std::move(context)));
      },
      &session);
  linked.object = std::move(session.object);
  linked.optimize_ms = session.optimize_ms;
  linked.codegen_ms = session.codegen_ms;
  return linked;
}

// The module as bitcode, kept by a quick kernel to compile it again (the JIT optimizes the module
// it is given in place, and the builder is the caller's, gone after the call).
std::string bitcode_of(const llvm::Module& module) {
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(module, stream);
  stream.flush();
  return bytes;
}

}  // namespace

struct CompiledKernel::Private {
  using TierUp = std::function<void(const std::shared_ptr<const CompiledKernel>&)>;

  void* address = nullptr;  // the first code, copied into the handle's atomic address
  std::string symbol;
  bool loaded_from_disk = false;

  mutable std::mutex mutex;  // guards what follows
  mutable std::condition_variable tier_changed;
  CodeTier tier = CodeTier::optimized;
  std::string object;  // the best tier's object: disk cache, `.s` dumps on a cache hit
  std::vector<llvm::orc::JITDylib*> dylibs;  // every tier's code, freed with the kernel
  TierUp tier_up;                            // set until the tier-up is taken, once
  mutable int uses = 0;
  mutable bool tier_up_running = false;

  // Installs the optimized code; from then on the handle's address is it.
  static void install(const CompiledKernel& kernel, Linked linked) {
    Private& state = *kernel.state_;
    std::lock_guard lock(state.mutex);
    state.dylibs.push_back(linked.dylib);
    state.object = std::move(linked.object);
    state.tier = CodeTier::optimized;
    kernel.address_.store(linked.address, std::memory_order_release);
  }

  static void finish_tier_up(const CompiledKernel& kernel) {
    Private& state = *kernel.state_;
    {
      std::lock_guard lock(state.mutex);
      state.tier_up_running = false;
    }
    state.tier_changed.notify_all();
  }

  // Takes the pending tier-up if there is one (the caller then runs it), else returns null.
  static TierUp take_tier_up(const CompiledKernel& kernel) {
    Private& state = *kernel.state_;
    TierUp job = std::move(state.tier_up);
    state.tier_up = nullptr;
    if (job) state.tier_up_running = true;
    kernel.tier_up_pending_.store(false, std::memory_order_relaxed);
    return job;
  }
};

CompiledKernel::CompiledKernel(std::unique_ptr<Private> state)
    : address_(state->address), tier_up_pending_(static_cast<bool>(state->tier_up)), state_(std::move(state)) {}

CompiledKernel::~CompiledKernel() {
  for (llvm::orc::JITDylib* dylib : state_->dylibs) remove_dylib(*dylib);
}

const std::string& CompiledKernel::symbol() const { return state_->symbol; }
bool CompiledKernel::loaded_from_disk() const { return state_->loaded_from_disk; }

CodeTier CompiledKernel::tier() const {
  std::lock_guard lock(state_->mutex);
  return state_->tier;
}

void CompiledKernel::note_use() const {
  Private::TierUp job;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->tier_up || ++state_->uses < kUsesBeforeTierUp) return;
    job = Private::take_tier_up(*this);
  }
  // The process's first optimized compile runs here, on the thread that uses the kernel: LLVM
  // constructs statics lazily in it (X86's fold tables), and the background thread, whose exit
  // handler must come after them, starts only once they exist (background_compiler.hpp, "Exit").
  if (!first_tier_up_done.load(std::memory_order_acquire)) {
    job(shared_from_this());
    first_tier_up_done.store(true, std::memory_order_release);
    background_compiler::start();
    return;
  }
  background_compiler::submit([job = std::move(job), self = shared_from_this()] { job(self); });
}

void CompiledKernel::wait_for_final_tier() const {
  Private::TierUp job;
  {
    std::unique_lock lock(state_->mutex);
    job = Private::take_tier_up(*this);
    if (!job) {
      state_->tier_changed.wait(lock, [&] { return !state_->tier_up_running; });
      return;
    }
  }
  job(shared_from_this());
}

struct Jit::Impl {
  struct Slot {
    std::shared_future<KernelHandle> kernel;  // ready once compiled; waiters share it
    std::uint64_t last_use = 0;
  };

  JitOptions options;
  TargetDescription target;
  JitEngine& engine;

  // Counted by tier-ups, which may finish after this Jit is gone.
  struct BackgroundCounters {
    std::atomic<std::uint64_t> tier_ups{0};
    std::atomic<std::uint64_t> disk_writes{0};
  };

  mutable std::mutex mutex;  // guards slots, use_clock, stats
  std::unordered_map<std::string, Slot> slots;
  std::uint64_t use_clock = 0;
  JitStats stats;
  std::shared_ptr<BackgroundCounters> background = std::make_shared<BackgroundCounters>();

  explicit Impl(JitOptions given)
      : options(std::move(given)),
        target(describe_host(options.vector_bits)),
        engine(JitEngine::instance()) {
    if (options.perf_map) write_perf_map(engine.lljit());
    if (!options.cache_dir.empty())
      stats.disk_quarantined = quarantine_abandoned_kernels(options.cache_dir);
  }

  void count(std::uint64_t JitStats::*counter) {
    std::lock_guard lock(mutex);
    ++(stats.*counter);
  }

  KernelHandle load_or_compile(const KernelKey& key, std::string_view symbol,
                               const ModuleBuilder& build, const DumpRequest* dump);
  KernelHandle compile(const KernelKey& key, std::string_view symbol, const ModuleBuilder& build,
                       const DumpRequest* dump, CodeTier tier);
  KernelHandle load_object(std::string object, std::string_view symbol, CodeTier tier,
                           CompiledKernel::Private::TierUp tier_up);
  // The job that compiles a quick kernel again, optimized, from its bitcode.
  CompiledKernel::Private::TierUp make_tier_up(std::string bitcode, std::string_view symbol, const KernelKey& key);
  void write_to_disk(const KernelKey& key, std::string_view symbol, CodeTier tier, const std::string& object);
  std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& context, std::string_view symbol,
                                             const ModuleBuilder& build);
  void write_assembly_dump(const std::string& object, const DumpRequest& dump);
  void write_dumps_for_cached(const CompiledKernel& kernel, std::string_view symbol,
                              const ModuleBuilder& build, const DumpRequest& dump);
  // Drops least recently used, finished kernels beyond the bound; returns them so that their
  // code is freed after the lock is released.
  std::vector<KernelHandle> evict_beyond_capacity();
};

Jit::Jit(JitOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Jit::~Jit() = default;

const TargetDescription& Jit::target() const { return impl_->target; }
const JitOptions& Jit::options() const { return impl_->options; }

JitStats Jit::stats() const {
  std::lock_guard lock(impl_->mutex);
  JitStats stats = impl_->stats;
  stats.tier_ups = impl_->background->tier_ups.load();
  stats.disk_writes += impl_->background->disk_writes.load();
  return stats;
}

std::size_t Jit::cached_kernel_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->slots.size();
}

std::uint64_t compile_count() { return process_compiles.load(); }

void wait_for_tier_ups() { background_compiler::wait_idle(); }

KernelHandle Jit::get_or_compile(const KernelKey& key, std::string_view symbol,
                                 const ModuleBuilder& build, const DumpRequest* dump) {
  Impl& impl = *impl_;
  // The symbol is part of the slot's name: the same key asked for under another symbol is another
  // kernel (its code defines another name).
  const std::string slot_name = std::string(symbol) + '\n' + key.text;
  std::promise<KernelHandle> promise;
  std::shared_future<KernelHandle> pending;
  bool owner = false;
  {
    std::lock_guard lock(impl.mutex);
    auto found = impl.slots.find(slot_name);
    if (found != impl.slots.end()) {
      found->second.last_use = ++impl.use_clock;
      pending = found->second.kernel;
    } else {
      owner = true;
      pending = promise.get_future().share();
      impl.slots.emplace(slot_name, Impl::Slot{pending, ++impl.use_clock});
    }
  }
  if (!owner) {
    KernelHandle kernel = pending.get();  // rethrows the compiling thread's failure
    impl.count(&JitStats::memory_hits);
    if (dump) impl.write_dumps_for_cached(*kernel, symbol, build, *dump);
    return kernel;
  }
  KernelHandle kernel;
  try {
    kernel = impl.load_or_compile(key, symbol, build, dump);
  } catch (...) {
    // Erased before the waiters learn of the failure, so a later call tries again.
    {
      std::lock_guard lock(impl.mutex);
      impl.slots.erase(slot_name);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
  promise.set_value(kernel);
  std::vector<KernelHandle> evicted;  // freed on return, after the lock is released
  {
    std::lock_guard lock(impl.mutex);
    evicted = impl.evict_beyond_capacity();
  }
  return kernel;
}

KernelHandle Jit::Impl::load_or_compile(const KernelKey& key, std::string_view symbol,
                                        const ModuleBuilder& build, const DumpRequest* dump) {
  // A dump shows the code that runs from then on: the optimized tier, compiled now.
  const CodeTier first_tier =
      options.tiered && !dump && key.may_start_quick ? CodeTier::quick : CodeTier::optimized;
  if (options.cache_dir.empty()) return compile(key, symbol, build, dump, first_tier);
  // The best tier on disk first: a kernel some process tiered up loads optimized.
  for (CodeTier tier : {CodeTier::optimized, CodeTier::quick}) {
    if (tier == CodeTier::quick && first_tier != CodeTier::quick) break;
    const std::string identity = cache_identity(key, symbol, target, tier);
    const auto path = cache_file_path(options.cache_dir, identity);
    auto read = read_cache_file(path, identity);
    if (read.object) {
      try {
        CompiledKernel::Private::TierUp tier_up;
        if (tier == CodeTier::quick) {
          llvm::LLVMContext context;
          tier_up = make_tier_up(bitcode_of(*build_module(context, symbol, build)), symbol, key);
        }
        record_disk_load(path);
        auto kernel = load_object(std::move(*read.object), symbol, tier, std::move(tier_up));
        count(&JitStats::disk_hits);
        logger().debug("kernel {} loaded from the disk cache {}", symbol, path.string());
        if (dump) write_dumps_for_cached(*kernel, symbol, build, *dump);
        return kernel;
      } catch (const InternalError& error) {
        read.rejection = error.what();
      }
    }
    if (!read.rejection.empty()) {
      count(&JitStats::disk_rejects);
      logger().warn("ignoring kernel cache file {}: {}; compiling it again", path.string(),
                    read.rejection);
    }
  }
  auto kernel = compile(key, symbol, build, dump, first_tier);
  write_to_disk(key, symbol, first_tier, kernel->internals().object);
  return kernel;
}

void Jit::Impl::write_to_disk(const KernelKey& key, std::string_view symbol, CodeTier tier,
                              const std::string& object) {
  if (object.empty()) {
    logger().error("the object of kernel {} was not captured; it is not cached on disk", symbol);
    return;
  }
  const std::string identity = cache_identity(key, symbol, target, tier);
  const auto path = cache_file_path(options.cache_dir, identity);
  const std::string failure = write_cache_file(path, identity, object);
  if (failure.empty()) {
    background->disk_writes.fetch_add(1);
  } else {
    warn_once("cache directory " + options.cache_dir.string(),
              fmt::format("cannot write kernel cache file {}: {}", path.string(), failure));
  }
}

std::unique_ptr<llvm::Module> Jit::Impl::build_module(llvm::LLVMContext& context,
                                                      std::string_view symbol,
                                                      const ModuleBuilder& build) {
  // Named by its symbol: the name reaches the object (its file symbol) and the dumps, which must
  // not depend on what else the process compiled.
  auto module =
      std::make_unique<llvm::Module>(llvm::StringRef(symbol.data(), symbol.size()), context);
  module->setDataLayout(engine.data_layout());
  module->setTargetTriple(engine.triple().str());
  build(*module);
  const llvm::Function* function =
      module->getFunction(llvm::StringRef(symbol.data(), symbol.size()));
  TJ_INTERNAL_CHECK(function && !function->isDeclaration())
      << "the module built for kernel '" << symbol << "' does not define a function of that name";
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*module, &stream)) {
    stream.flush();
    TJ_INTERNAL_CHECK(false) << "the module built for kernel '" << symbol
                             << "' is not valid LLVM IR: " << problems;
  }
  reject_fast_math(*module, symbol);
  return module;
}

KernelHandle Jit::Impl::compile(const KernelKey& key, std::string_view symbol,
                                const ModuleBuilder& build, const DumpRequest* dump, CodeTier tier) {
  const auto start = Clock::now();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = build_module(*context, symbol, build);
  auto state = std::make_unique<CompiledKernel::Private>();
  if (tier == CodeTier::quick) state->tier_up = make_tier_up(bitcode_of(*module), symbol, key);
  const double build_ms = milliseconds_since(start);

  Linked linked = link_module(std::move(module), std::move(context), symbol, tier, dump);
  // LLVM's lazily made statics now exist: tier-ups may go to the background thread (note_use).
  if (tier == CodeTier::optimized) first_tier_up_done.store(true, std::memory_order_release);
  state->address = linked.address;
  state->dylibs.push_back(linked.dylib);
  state->symbol = std::string(symbol);
  state->object = std::move(linked.object);
  state->tier = tier;
  auto kernel = std::make_shared<const CompiledKernel>(std::move(state));

  ++process_compiles;
  count(&JitStats::compiles);
  const double total_ms = milliseconds_since(start);
  logger().info(
      "compiled kernel {} ({}) in {:.2f} ms (build {:.2f}, optimize {:.2f}, codegen {:.2f}, link "
      "{:.2f}), key {}",
      symbol, tier == CodeTier::quick ? "quick" : "optimized", total_ms, build_ms, linked.optimize_ms,
      linked.codegen_ms, total_ms - build_ms - linked.optimize_ms - linked.codegen_ms, short_hash(key.text));
  if (dump) write_assembly_dump(kernel->internals().object, *dump);
  return kernel;
}

CompiledKernel::Private::TierUp Jit::Impl::make_tier_up(std::string bitcode, std::string_view symbol,
                                                        const KernelKey& key) {
  // Runs on the background thread (or a thread that dumps the kernel), maybe after this Jit is
  // gone: it holds copies of what it needs, never the Impl.
  return [bitcode = std::move(bitcode), symbol = std::string(symbol), key, target = target,
          cache_dir = options.cache_dir,
          counters = background](const std::shared_ptr<const CompiledKernel>& kernel) {
    const auto start = Clock::now();
    try {
      auto context = std::make_unique<llvm::LLVMContext>();
      auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, symbol), *context);
      if (!parsed) throw InternalError("cannot read back its bitcode: " + llvm::toString(parsed.takeError()));
      Linked linked = link_module(std::move(*parsed), std::move(context), symbol, CodeTier::optimized, nullptr);
      const double codegen_ms = linked.codegen_ms;
      CompiledKernel::Private::install(*kernel, std::move(linked));
      counters->tier_ups.fetch_add(1);
      logger().info("optimized kernel {} in the background in {:.2f} ms (codegen {:.2f})", symbol,
                    milliseconds_since(start), codegen_ms);
      if (!cache_dir.empty()) {
        const std::string identity = cache_identity(key, symbol, target, CodeTier::optimized);
        const auto path = cache_file_path(cache_dir, identity);
        const std::string failure = write_cache_file(path, identity, kernel->internals().object);
        if (failure.empty()) counters->disk_writes.fetch_add(1);
        else warn_once("cache directory " + cache_dir.string(),
                       fmt::format("cannot write kernel cache file {}: {}", path.string(), failure));
      }
    } catch (const std::exception& error) {
      try {
        logger().error("optimizing kernel {} failed: {}; it keeps its first code", symbol, error.what());
      } catch (...) {
        // A background job reports its failure by logging; if even that fails, it stays quiet.
      }
    }
    CompiledKernel::Private::finish_tier_up(*kernel);
  };
}

KernelHandle Jit::Impl::load_object(std::string object, std::string_view symbol, CodeTier tier,
                                    CompiledKernel::Private::TierUp tier_up) {
  auto& lljit = engine.lljit();
  auto& dylib = create_kernel_dylib(lljit);
  auto state = std::make_unique<CompiledKernel::Private>();
  state->address = add_and_look_up(
      dylib, symbol,
      [&] {
        return lljit.addObjectFile(dylib, llvm::MemoryBuffer::getMemBufferCopy(
                                              object, "tensorjit.cached." + std::string(symbol)));
      },
      nullptr);
  state->dylibs.push_back(&dylib);
  state->symbol = std::string(symbol);
  state->loaded_from_disk = true;
  state->object = std::move(object);
  state->tier = tier;
  state->tier_up = std::move(tier_up);
  return std::make_shared<const CompiledKernel>(std::move(state));
}

void Jit::Impl::write_assembly_dump(const std::string& object, const DumpRequest& dump) {
  std::string text;
  try {
    text = fmt::format("# kernel {}: disassembly of the object the JIT linked\n# {}\n",
                       dump.kernel_name, target.summary());
    text += disassemble_object(object, engine.triple().str(), target.cpu, target.features);
  } catch (const std::exception& error) {
    logger().warn("cannot disassemble kernel {}: {}", dump.kernel_name, error.what());
    return;
  }
  write_dump_file(dump.folder, dump.kernel_name + ".s", text);
}

void Jit::Impl::write_dumps_for_cached(const CompiledKernel& kernel, std::string_view symbol,
                                       const ModuleBuilder& build, const DumpRequest& dump) {
  kernel.wait_for_final_tier();  // the dump shows the code that runs from now on
  try {
    llvm::LLVMContext context;
    auto module = build_module(context, symbol, build);
    write_dump_file(dump.folder, dump.kernel_name + ".ll", module_text(*module));
    auto machine = engine.machines(CodeTier::optimized).acquire();
    if (!machine) throw InternalError(llvm::toString(machine.takeError()));
    run_pipeline(*module, &**machine, kKernelPipeline);
    write_dump_file(dump.folder, dump.kernel_name + ".opt.ll", module_text(*module));
  } catch (const std::exception& error) {
    logger().warn("cannot rebuild the IR of cached kernel {} for its dump: {}", dump.kernel_name,
                  error.what());
  }
  write_assembly_dump(kernel.internals().object, dump);
}

std::vector<KernelHandle> Jit::Impl::evict_beyond_capacity() {
  std::vector<KernelHandle> evicted;
  while (slots.size() > options.memory_cache_capacity) {
    auto oldest = slots.end();
    for (auto slot = slots.begin(); slot != slots.end(); ++slot) {
      const bool finished =
          slot->second.kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
      if (finished && (oldest == slots.end() || slot->second.last_use < oldest->second.last_use))
        oldest = slot;
    }
    if (oldest == slots.end()) break;  // everything left is still compiling
    evicted.push_back(oldest->second.kernel.get());
    slots.erase(oldest);
    ++stats.evictions;
  }
  return evicted;
}

}  // namespace tensorjit::codegen
