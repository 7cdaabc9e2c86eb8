#include "codegen/src/jit/jit_engine.hpp"

#include <chrono>
#include <exception>
#include <mutex>
#include <utility>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/ObjectTransformLayer.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCContext.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/error.hpp>

#include "codegen/src/jit/dump_files.hpp"
#include "codegen/src/jit/optimization_pipeline.hpp"

namespace tensorjit::codegen {
namespace {

using Clock = std::chrono::steady_clock;

std::string& reported_errors_on_this_thread() {
  thread_local std::string errors;
  return errors;
}

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

llvm::Error error_from_exception(const std::exception_ptr& failure) {
  std::string message = "exception in a tensorjit JIT layer";
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& exception) {
    message += std::string(": ") + exception.what();
  } catch (...) {}
  return llvm::make_error<llvm::StringError>(message, llvm::inconvertibleErrorCode());
}

// Codegen with a pooled TargetMachine. Safe to call from several threads at once. The object's
// buffer is named by the module's session_id, so the object transform can find the session.
class PooledCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  PooledCompiler(JitEngine& engine, CompileRegistry& registry)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(
            engine.machines(CodeTier::optimized).builder().getOptions())),
        engine_(engine),
        registry_(registry) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    try {
      return compile(module);
    } catch (...) {  // allocation failure in our code: no exception may unwind into ORC
      return error_from_exception(std::current_exception());
    }
  }

 private:
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compile(llvm::Module& module) {
    const auto start = Clock::now();
    const std::string id = session_id(module);
    CompileSession* session = registry_.find(id);
    auto machine = engine_.machines(session ? session->tier : CodeTier::optimized).acquire();
    if (!machine) return machine.takeError();
    llvm::SmallVector<char, 0> object;
    llvm::raw_svector_ostream stream(object);
    llvm::legacy::PassManager passes;
    llvm::MCContext* context = nullptr;
    if ((**machine).addPassesToEmitMC(passes, context, stream))
      return llvm::make_error<llvm::StringError>("the target cannot emit machine code",
                                                 llvm::inconvertibleErrorCode());
    passes.run(module);
    if (session) session->codegen_ms = milliseconds_since(start);
    return std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(object), id,
                                                           /*RequiresNullTerminator=*/false);
  }

  JitEngine& engine_;
  CompileRegistry& registry_;
};

// The IR transform's work on one module, which may throw (file writes, allocation).
void optimize_with_dumps(llvm::Module& module, JitEngine& engine, CompileSession* session) {
  const auto start = Clock::now();
  if (session && session->dump)
    write_dump_file(session->dump->folder, session->dump->kernel_name + ".ll", module_text(module));
  // The session's tier's pool: a first quick compile then makes one TargetMachine, not two.
  auto machine = engine.machines(session ? session->tier : CodeTier::optimized).acquire();
  if (!machine) throw InternalError(llvm::toString(machine.takeError()));
  run_pipeline(module, &**machine, kKernelPipeline);
  if (session && session->dump)
    write_dump_file(session->dump->folder, session->dump->kernel_name + ".opt.ll",
                    module_text(module));
  if (session) session->optimize_ms = milliseconds_since(start);
}

}  // namespace

llvm::orc::JITTargetMachineBuilder kernel_target_machine_builder(CodeTier tier) {
  auto detected = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!detected)
    throw InternalError("cannot describe the host CPU to LLVM: " +
                        llvm::toString(detected.takeError()));
  // Small code model with position-independent code: constant pools are reached RIP-relative.
  // Without PIC, LLVM emits 32-bit absolute addresses, which JITLink cannot fix up when it maps
  // memory above 2 GiB (it does on Linux).
  detected->setCodeModel(llvm::CodeModel::Small);
  detected->setRelocationModel(llvm::Reloc::PIC_);
  detected->setCodeGenOptLevel(codegen_level(tier));
  detected->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  return std::move(*detected);
}

std::string take_reported_errors() { return std::exchange(reported_errors_on_this_thread(), {}); }

JitEngine& JitEngine::instance() {
  // Deliberately leaked: see jit.hpp, "Process model".
  static JitEngine* const engine = new JitEngine();
  return *engine;
}

JitEngine::JitEngine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetDisassembler();

  auto target_machine_builder = kernel_target_machine_builder(CodeTier::optimized);
  machines_[static_cast<int>(CodeTier::quick)] =
      std::make_unique<TargetMachinePool>(kernel_target_machine_builder(CodeTier::quick));
  machines_[static_cast<int>(CodeTier::optimized)] = std::make_unique<TargetMachinePool>(target_machine_builder);
  // In-place dispatch: each compile and link runs on the thread that asked for the kernel (no
  // thread started per compile, and a failure's report reaches that thread, see
  // take_reported_errors). Several threads may compile at once: the compile function and the
  // transforms are thread safe and every module has its own LLVMContext.
  auto process_control = llvm::orc::SelfExecutorProcessControl::Create(
      nullptr, std::make_unique<llvm::orc::InPlaceTaskDispatcher>());
  if (!process_control)
    throw InternalError("cannot create the JIT's process control: " +
                        llvm::toString(process_control.takeError()));
  auto made =
      llvm::orc::LLJITBuilder()
          .setExecutorProcessControl(std::move(*process_control))
          .setJITTargetMachineBuilder(target_machine_builder)
          // Off, although compiles do run concurrently: the flag only picks ORC's own
          // compile function (we give ours, thread safe through the pool) and makes ORC
          // clone every module into a new context before emitting it, which a module
          // that already owns its context does not need.
          .setSupportConcurrentCompilation(false)
          .setCompileFunctionCreator(
              [this](llvm::orc::JITTargetMachineBuilder)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<PooledCompiler>(*this, registry_);
              })
          // Kernels have no static constructors: no platform runtime is needed.
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .create();
  if (!made) throw InternalError("cannot create the LLVM JIT: " + llvm::toString(made.takeError()));
  lljit_ = std::move(*made);
  // Link errors (an unresolved symbol) reach the reporter, not the failed lookup, which only says
  // "failed to materialize". Linking runs on the thread that looked up, so a thread-local note
  // lets that thread's exception carry the real cause.
  lljit_->getExecutionSession().setErrorReporter([](llvm::Error error) {
    const std::string message = llvm::toString(std::move(error));
    try {
      logger().debug("LLVM JIT reported: {}", message);
      auto& reported = reported_errors_on_this_thread();
      reported += (reported.empty() ? "" : "; ") + message;
    } catch (...) {
      // Out of memory while noting an error inside ORC: the lookup still fails, with less detail.
    }
  });
  install_transforms();
}

void JitEngine::install_transforms() {
  lljit_->getIRTransformLayer().setTransform(
      [this](llvm::orc::ThreadSafeModule module, llvm::orc::MaterializationResponsibility&)
          -> llvm::Expected<llvm::orc::ThreadSafeModule> {
        std::exception_ptr failure;
        module.withModuleDo([&](llvm::Module& inner) {
          CompileSession* session = registry_.find(session_id(inner));
          try {
            optimize_with_dumps(inner, *this, session);
          } catch (...) {
            failure = std::current_exception();
            if (session) session->failure = failure;
          }
        });
        if (failure) return error_from_exception(failure);
        return module;
      });
  lljit_->getObjTransformLayer().setTransform(
      [this](std::unique_ptr<llvm::MemoryBuffer> object)
          -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
        CompileSession* session = registry_.find(object->getBufferIdentifier().str());
        if (!session) return object;
        try {
          session->object.assign(object->getBufferStart(), object->getBufferSize());
        } catch (...) {
          session->failure = std::current_exception();
          return error_from_exception(session->failure);
        }
        return object;
      });
}

}  // namespace tensorjit::codegen
