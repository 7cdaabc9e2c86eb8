// The Jit facade: the in-memory cache (compile once per key, bounded, LRU eviction), the disk
// cache flow, dumps and the per-kernel log line. The LLVM side lives in jit_engine.cpp.
#include <tensorjit/codegen/jit.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
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

#include "compile_session.hpp"
#include "disassemble.hpp"
#include "disk_cache.hpp"
#include "dump_files.hpp"
#include "jit_engine.hpp"
#include "module_builder.hpp"
#include "pipeline.hpp"
#include "warn_once.hpp"

namespace tensorjit::codegen {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<std::uint64_t> process_compiles{0};
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

// DESIGN.md contract 4: results are bit-exact with the interpreter, so no instruction may carry a
// fast-math flag (even `contract` alone lets the backend fuse a multiply and an add).
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

}  // namespace

struct CompiledKernel::Private {
  void* address = nullptr;
  std::string symbol;
  bool loaded_from_disk = false;
  std::string object;  // what was linked, kept for `.s` dumps on a cache hit
  llvm::orc::JITDylib* dylib = nullptr;
};

CompiledKernel::CompiledKernel(std::unique_ptr<Private> state)
    : address_(state->address), state_(std::move(state)) {}

CompiledKernel::~CompiledKernel() {
  if (state_->dylib) remove_dylib(*state_->dylib);
}

const std::string& CompiledKernel::symbol() const { return state_->symbol; }
bool CompiledKernel::loaded_from_disk() const { return state_->loaded_from_disk; }

struct Jit::Impl {
  struct Slot {
    std::shared_future<KernelHandle> kernel;  // ready once compiled; waiters share it
    std::uint64_t last_use = 0;
  };

  JitOptions options;
  TargetDescription target;
  JitEngine& engine;

  mutable std::mutex mutex;  // guards slots, use_clock, stats
  std::unordered_map<std::string, Slot> slots;
  std::uint64_t use_clock = 0;
  JitStats stats;

  explicit Impl(JitOptions given)
      : options(std::move(given)),
        target(describe_host(options.vector_bits)),
        engine(JitEngine::instance()) {}

  void count(std::uint64_t JitStats::*counter) {
    std::lock_guard lock(mutex);
    ++(stats.*counter);
  }

  KernelHandle load_or_compile(const KernelKey& key, std::string_view symbol,
                               const ModuleBuilder& build, const DumpRequest* dump);
  KernelHandle compile(const KernelKey& key, std::string_view symbol, const ModuleBuilder& build,
                       const DumpRequest* dump);
  KernelHandle load_object(std::string object, std::string_view symbol);
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
  return impl_->stats;
}

std::size_t Jit::cached_kernel_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->slots.size();
}

std::uint64_t compile_count() { return process_compiles.load(); }

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
  if (options.cache_dir.empty()) return compile(key, symbol, build, dump);
  const std::string identity = cache_identity(key, symbol, target);
  const auto path = cache_file_path(options.cache_dir, identity);
  auto read = read_cache_file(path, identity);
  if (read.object) {
    try {
      auto kernel = load_object(std::move(*read.object), symbol);
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
  auto kernel = compile(key, symbol, build, dump);
  if (kernel->internals().object.empty()) {
    logger().error("the object of kernel {} was not captured; it is not cached on disk", symbol);
    return kernel;
  }
  const std::string failure = write_cache_file(path, identity, kernel->internals().object);
  if (failure.empty()) {
    count(&JitStats::disk_writes);
  } else {
    warn_once("cache directory " + options.cache_dir.string(),
              fmt::format("cannot write kernel cache file {}: {}", path.string(), failure));
  }
  return kernel;
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
                                const ModuleBuilder& build, const DumpRequest* dump) {
  const auto start = Clock::now();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = build_module(*context, symbol, build);
  const double build_ms = milliseconds_since(start);

  CompileSession session;
  session.dump = dump;
  ScopedCompileSession registration(engine.registry(), session_id(*module), session);
  auto& lljit = engine.lljit();
  auto& dylib = create_kernel_dylib(lljit);
  auto state = std::make_unique<CompiledKernel::Private>();
  state->address = add_and_look_up(
      dylib, symbol,
      [&] {
        return lljit.addIRModule(
            dylib, llvm::orc::ThreadSafeModule(std::move(module), std::move(context)));
      },
      &session);
  state->dylib = &dylib;
  state->symbol = std::string(symbol);
  state->object = std::move(session.object);
  auto kernel = std::make_shared<const CompiledKernel>(std::move(state));

  ++process_compiles;
  count(&JitStats::compiles);
  const double total_ms = milliseconds_since(start);
  logger().info(
      "compiled kernel {} in {:.2f} ms (build {:.2f}, optimize {:.2f}, codegen {:.2f}, link "
      "{:.2f}), key {}",
      symbol, total_ms, build_ms, session.optimize_ms, session.codegen_ms,
      total_ms - build_ms - session.optimize_ms - session.codegen_ms, short_hash(key.text));
  if (dump) write_assembly_dump(kernel->internals().object, *dump);
  return kernel;
}

KernelHandle Jit::Impl::load_object(std::string object, std::string_view symbol) {
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
  state->dylib = &dylib;
  state->symbol = std::string(symbol);
  state->loaded_from_disk = true;
  state->object = std::move(object);
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
  try {
    llvm::LLVMContext context;
    auto module = build_module(context, symbol, build);
    write_dump_file(dump.folder, dump.kernel_name + ".ll", module_text(*module));
    auto machine = engine.machines().acquire();
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
