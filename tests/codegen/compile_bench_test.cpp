// Measurements behind docs/codegen.md, skipped by default. Reproduce with:
//   build-codegen/tests/codegen/tests_codegen --no-skip -tc="bench*"
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCContext.h>
#include <llvm/Support/raw_ostream.h>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/log.hpp>

#include "codegen_test_support.hpp"
#include "codegen/src/jit/jit_engine.hpp"
#include "codegen/src/jit/optimization_pipeline.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

namespace {

using Clock = std::chrono::steady_clock;

// Median milliseconds of `runs` calls of `timed`; `untimed` prepares each call.
double median_ms(int runs, const std::function<void()>& untimed,
                 const std::function<void()>& timed) {
  std::vector<double> samples;
  for (int run = 0; run < runs; ++run) {
    untimed();
    const auto start = Clock::now();
    timed();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::nth_element(samples.begin(), samples.begin() + runs / 2, samples.end());
  return samples[runs / 2];
}

// A module in its own context. Declared context first, so the module dies before its context.
struct FreshModule {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;

  FreshModule() = default;
  FreshModule(FreshModule&&) = default;
  FreshModule& operator=(FreshModule&& other) {
    module.reset();  // before the context it lives in
    context = std::move(other.context);
    module = std::move(other.module);
    return *this;
  }
};

FreshModule build_fresh(const llvm::DataLayout& layout, const std::string& triple, int bits) {
  FreshModule fresh;
  fresh.module = std::make_unique<llvm::Module>("multiply_add", *fresh.context);
  fresh.module->setDataLayout(layout);
  fresh.module->setTargetTriple(triple);
  build_multiply_add(*fresh.module, "multiply_add", bits);
  return fresh;
}

std::size_t emit_object(llvm::TargetMachine& machine, llvm::Module& module) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  llvm::MCContext* context = nullptr;
  machine.addPassesToEmitMC(passes, context, stream);
  passes.run(module);
  return object.size();
}

// ns per element of the multiply-add kernel on L1-resident data, compiled at `level`.
double kernel_ns_per_element(llvm::CodeGenOptLevel level, int bits) {
  auto builder = codegen::kernel_target_machine_builder(codegen::CodeTier::optimized);
  builder.setCodeGenOptLevel(level);
  auto jit = llvm::cantFail(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(builder).create());
  auto fresh = build_fresh(jit->getDataLayout(), jit->getTargetTriple().str(), bits);
  codegen::run_pipeline(*fresh.module, nullptr, codegen::kKernelPipeline);
  llvm::cantFail(jit->addIRModule(
      llvm::orc::ThreadSafeModule(std::move(fresh.module), std::move(fresh.context))));
  auto* kernel = llvm::cantFail(jit->lookup("multiply_add")).toPtr<MultiplyAddKernel*>();
  constexpr int kCount = 4096, kRepeats = 20000;
  const auto a = random_floats(kCount, 1), b = random_floats(kCount, 2),
             c = random_floats(kCount, 3);
  std::vector<float> y(kCount);
  std::vector<double> samples;
  for (int trial = 0; trial < 5; ++trial) {
    const auto start = Clock::now();
    for (int repeat = 0; repeat < kRepeats; ++repeat)
      kernel(a.data(), b.data(), c.data(), y.data(), kCount);
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                      (double(kCount) * kRepeats));
  }
  return *std::min_element(samples.begin(), samples.end());
}

}  // namespace

TEST_CASE("bench: compile latency of a small vector kernel, and cache hits" * doctest::skip()) {
  constexpr int kRuns = 200;
  codegen::Jit jit;
  auto& engine = codegen::JitEngine::instance();
  const int bits = jit.target().vector_bits;
  const auto& layout = engine.data_layout();
  const std::string triple = engine.triple().str();
  std::printf("target: %s\n", jit.target().summary().c_str());

  FreshModule fresh;
  std::printf("build IR (fresh context):        %.3f ms\n",
              median_ms(
                  kRuns, [] {}, [&] { fresh = build_fresh(layout, triple, bits); }));

  auto machine = llvm::cantFail(engine.machines(codegen::CodeTier::optimized).acquire());
  for (auto pipeline : {codegen::Pipeline::none, codegen::Pipeline::instcombine_simplifycfg,
                        codegen::Pipeline::o1, codegen::Pipeline::o2}) {
    const double ms = median_ms(
        kRuns, [&] { fresh = build_fresh(layout, triple, bits); },
        [&] { codegen::run_pipeline(*fresh.module, &*machine, pipeline); });
    std::printf("optimize %-34s %.3f ms\n", std::string(codegen::pipeline_name(pipeline)).c_str(),
                ms);
  }
  for (auto level : {llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
                     llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive}) {
    auto builder = codegen::kernel_target_machine_builder(codegen::CodeTier::optimized);
    builder.setCodeGenOptLevel(level);
    auto level_machine = llvm::cantFail(builder.createTargetMachine());
    std::size_t bytes = 0;
    const double ms = median_ms(
        kRuns,
        [&] {
          fresh = build_fresh(layout, triple, bits);
          codegen::run_pipeline(*fresh.module, &*machine, codegen::kKernelPipeline);
        },
        [&] { bytes = emit_object(*level_machine, *fresh.module); });
    std::printf("codegen %-10s %.3f ms (object %zu bytes), kernel %.3f ns/element\n",
                std::string(codegen::codegen_level_name(level)).c_str(), ms, bytes,
                kernel_ns_per_element(level, bits));
  }

  int key = 0;
  auto build = multiply_add_builder("multiply_add", bits);
  for (int warm = 0; warm < 3; ++warm)
    jit.get_or_compile({"bench/warm/" + std::to_string(warm)}, "multiply_add", build);
  // Each cold compile logs its split (build, optimize, codegen, link) at info.
  codegen::set_log_level("info");
  std::printf(
      "get_or_compile, cold (whole JIT): %.3f ms\n",
      median_ms(
          kRuns, [] {},
          [&] { jit.get_or_compile({"bench/" + std::to_string(++key)}, "multiply_add", build); }));
  codegen::set_log_level("warn");
  jit.get_or_compile({"bench/hit"}, "multiply_add", build);
  std::printf("get_or_compile, memory hit:      %.5f ms\n",
              median_ms(
                  10000, [] {}, [&] { jit.get_or_compile({"bench/hit"}, "multiply_add", build); }));

  ScratchDirectory directory("bench-disk");
  {
    codegen::Jit writer(options_with_cache(directory.path()));
    for (int i = 0; i < kRuns; ++i)
      writer.get_or_compile({"bench/disk/" + std::to_string(i)}, "multiply_add", build);
  }
  codegen::Jit reader(options_with_cache(directory.path()));
  int disk_key = 0;
  std::printf("get_or_compile, disk hit:        %.3f ms\n",
              median_ms(
                  kRuns, [] {},
                  [&] {
                    reader.get_or_compile({"bench/disk/" + std::to_string(disk_key++)},
                                          "multiply_add", build);
                  }));
  CHECK(reader.stats().disk_hits == kRuns);
}
