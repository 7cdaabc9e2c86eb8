#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/error.hpp>

#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

TEST_CASE("a hand-built vector kernel computes a*b + c with two roundings") {
  codegen::Jit jit;
  const int bits = jit.target().vector_bits;
  auto kernel = jit.get_or_compile({"multiply_add/native"}, "multiply_add",
                                   multiply_add_builder("multiply_add", bits));
  REQUIRE(kernel);
  REQUIRE(kernel->address() != nullptr);
  CHECK(kernel->symbol() == "multiply_add");
  CHECK_FALSE(kernel->loaded_from_disk());
  for (std::size_t count : {0, 1, 7, 16, 33, 1000, 1003}) {
    CAPTURE(count);
    CHECK(same_bits(run_multiply_add(*kernel, count), expected_multiply_add(count)));
  }
  // The check above can tell a fused multiply-add apart: some inputs round differently.
  const auto a = random_floats(1003, 1), b = random_floats(1003, 2), c = random_floats(1003, 3);
  int fused_differs = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    fused_differs += std::fma(a[i], b[i], c[i]) != a[i] * b[i] + c[i];
  CHECK(fused_differs > 0);
}

TEST_CASE("every width gives the same bits") {
  const std::size_t count = 1000 + 13;
  const auto expected = expected_multiply_add(count);
  for (int bits : codegen::kVectorBitsChoices) {
    CAPTURE(bits);
    codegen::Jit jit(options_with_width(bits));
    CHECK(jit.target().vector_bits == bits);
    auto kernel = jit.get_or_compile({"multiply_add/" + std::to_string(bits)}, "multiply_add",
                                     multiply_add_builder("multiply_add", bits));
    CHECK(same_bits(run_multiply_add(*kernel, count), expected));
  }
}

TEST_CASE("a second request compiles nothing; the counters say so") {
  codegen::Jit jit;
  const int bits = jit.target().vector_bits;
  const auto before = codegen::compile_count();
  auto first = jit.get_or_compile({"counter"}, "kernel", multiply_add_builder("kernel", bits));
  CHECK(codegen::compile_count() == before + 1);
  auto second = jit.get_or_compile({"counter"}, "kernel", multiply_add_builder("kernel", bits));
  CHECK(codegen::compile_count() == before + 1);
  CHECK(first == second);
  // Another key with the same symbol name is another kernel: no clash.
  auto other = jit.get_or_compile({"counter/2"}, "kernel", multiply_add_builder("kernel", bits));
  CHECK(codegen::compile_count() == before + 2);
  CHECK(other->address() != first->address());
  // The same key under another symbol is another kernel too.
  auto renamed = jit.get_or_compile({"counter"}, "renamed", multiply_add_builder("renamed", bits));
  CHECK(renamed->symbol() == "renamed");
  CHECK(codegen::compile_count() == before + 3);
  const auto stats = jit.stats();
  CHECK(stats.compiles == 3);
  CHECK(stats.memory_hits == 1);
  CHECK(jit.cached_kernel_count() == 3);
}

TEST_CASE("the in-memory bound evicts the least recently used kernel") {
  codegen::JitOptions options;
  options.memory_cache_capacity = 2;
  codegen::Jit jit(options);
  const int bits = jit.target().vector_bits;
  auto build = multiply_add_builder("k", bits);
  auto held = jit.get_or_compile({"evict/a"}, "k", build);
  jit.get_or_compile({"evict/b"}, "k", build);
  jit.get_or_compile({"evict/a"}, "k", build);  // a is now more recent than b
  jit.get_or_compile({"evict/c"}, "k", build);  // evicts b
  CHECK(jit.cached_kernel_count() == 2);
  CHECK(jit.stats().evictions == 1);
  const auto before = codegen::compile_count();
  jit.get_or_compile({"evict/a"}, "k", build);
  CHECK(codegen::compile_count() == before);
  jit.get_or_compile({"evict/b"}, "k", build);  // compiled again; evicts c
  CHECK(codegen::compile_count() == before + 1);
  jit.get_or_compile({"evict/d"}, "k", build);  // evicts a, which `held` still holds
  CHECK(jit.stats().evictions == 3);
  CHECK(jit.cached_kernel_count() == 2);
  // Out of the cache, but the handle keeps its code mapped and runnable.
  CHECK(same_bits(run_multiply_add(*held, 100), expected_multiply_add(100)));
}

TEST_CASE("an exception from the builder reaches the caller and nothing is cached") {
  codegen::Jit jit;
  const auto before = codegen::compile_count();
  codegen::ModuleBuilder throwing(
      [](llvm::Module&) { throw std::invalid_argument("no lowering"); });
  CHECK_THROWS_AS(jit.get_or_compile({"throws"}, "k", throwing), std::invalid_argument);
  CHECK(jit.cached_kernel_count() == 0);
  auto kernel = jit.get_or_compile({"throws"}, "k", multiply_add_builder("k", 128));
  CHECK(kernel);
  CHECK(codegen::compile_count() == before + 1);
}

TEST_CASE("an invalid module or a missing symbol is an internal error with LLVM's words") {
  codegen::Jit jit;
  codegen::ModuleBuilder missing(
      [](llvm::Module& module) { build_multiply_add(module, "other_name", 128); });
  CHECK_THROWS_AS(jit.get_or_compile({"missing"}, "k", missing), tensorjit::InternalError);

  codegen::ModuleBuilder invalid([](llvm::Module& module) {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()), false);
    auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "k", module);
    llvm::BasicBlock::Create(module.getContext(), "entry", function);  // no terminator
  });
  try {
    jit.get_or_compile({"invalid"}, "k", invalid);
    FAIL("no throw");
  } catch (const tensorjit::InternalError& error) {
    CHECK(std::string(error.what()).find("not valid LLVM IR") != std::string::npos);
  }

  codegen::ModuleBuilder unresolved([](llvm::Module& module) {
    auto& context = module.getContext();
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto* callee = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                          "tensorjit_no_such_function", module);
    auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "k", module);
    llvm::IRBuilder<> ir(llvm::BasicBlock::Create(context, "entry", function));
    ir.CreateCall(callee);
    ir.CreateRetVoid();
  });
  try {
    jit.get_or_compile({"unresolved"}, "k", unresolved);
    FAIL("no throw");
  } catch (const tensorjit::InternalError& error) {
    CHECK(std::string(error.what()).find("tensorjit_no_such_function") != std::string::npos);
  }
  CHECK(jit.cached_kernel_count() == 0);
}

TEST_CASE("a kernel may call libm: declarations resolve against the process") {
  codegen::Jit jit;
  codegen::ModuleBuilder calls_expf([](llvm::Module& module) {
    auto& context = module.getContext();
    llvm::IRBuilder<> ir(context);
    auto* unary = llvm::FunctionType::get(ir.getFloatTy(), {ir.getFloatTy()}, false);
    auto expf = module.getOrInsertFunction("expf", unary);
    auto* function = llvm::Function::Create(unary, llvm::Function::ExternalLinkage, "k", module);
    ir.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
    ir.CreateRet(ir.CreateCall(expf, {function->getArg(0)}));
  });
  auto kernel = jit.get_or_compile({"expf"}, "k", calls_expf);
  volatile float x = 1.5f;  // volatile: the reference is libm's expf at run time, not folded
  CHECK(kernel->as<float(float)>()(x) == ::expf(x));
}

TEST_CASE("a module with fast-math flags is refused: results must be bit-exact") {
  codegen::Jit jit;
  codegen::ModuleBuilder contracting([](llvm::Module& module) {
    build_multiply_add(module, "k", 128);
    for (auto& instruction : llvm::instructions(*module.getFunction("k")))
      if (llvm::isa<llvm::FPMathOperator>(instruction)) instruction.setHasAllowContract(true);
  });
  CHECK_THROWS_AS(jit.get_or_compile({"contract"}, "k", contracting), tensorjit::InternalError);
}

TEST_CASE("with perf_map, each linked kernel has its line in /tmp/perf-<pid>.map") {
  const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  codegen::JitOptions options;
  options.perf_map = true;
  codegen::Jit jit(options);
  const int bits = jit.target().vector_bits;
  auto kernel = jit.get_or_compile({"multiply_add/perf_map"}, "multiply_add_named_for_perf",
                                   multiply_add_builder("multiply_add_named_for_perf", bits));
  REQUIRE(kernel);
  // "<start> <size> <name>" in hex; the kernel's address is the start of the line naming it.
  std::ifstream map(path);
  REQUIRE(map);
  const auto address = reinterpret_cast<std::uintptr_t>(kernel->address());
  bool found = false;
  std::string line;
  while (std::getline(map, line)) {
    std::istringstream fields(line);
    std::uintptr_t start = 0, size = 0;
    std::string name;
    fields >> std::hex >> start >> size >> name;
    REQUIRE_FALSE(fields.fail());
    CHECK(size > 0);
    if (name == "multiply_add_named_for_perf") {
      CHECK(start == address);
      found = true;
    }
  }
  CHECK(found);
  std::filesystem::remove(path);  // later kernels of this process go to the unlinked file
}
