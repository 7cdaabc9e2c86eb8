#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <tensorjit/codegen/jit.hpp>

#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a dump writes the IR before and after optimization and the linked assembly") {
  ScratchDirectory directory("dump");
  codegen::Jit jit;
  const codegen::DumpRequest dump{directory.path() / "eval-1", "kernel_0"};
  jit.get_or_compile({"dump/a"}, "multiply_add",
                     multiply_add_builder("multiply_add", jit.target().vector_bits), &dump);
  const auto before = read_text(dump.folder / "kernel_0.ll");
  const auto after = read_text(dump.folder / "kernel_0.opt.ll");
  const auto assembly = read_text(dump.folder / "kernel_0.s");
  CHECK(contains(before, "define void @multiply_add"));
  CHECK(contains(before, "fmul <"));
  CHECK(contains(after, "define void @multiply_add"));
  CHECK_FALSE(contains(before + after, "fast"));  // no fast-math flags anywhere
  CHECK(contains(assembly, "multiply_add:"));
  CHECK(contains(assembly, "vmulps"));
  CHECK(contains(assembly, "vaddps"));
  CHECK_FALSE(contains(assembly, "vfmadd"));  // no contraction
  CHECK(contains(assembly, jit.target().cpu));
}

TEST_CASE("a kernel from the cache still dumps all three files") {
  ScratchDirectory directory("dump-cached");
  codegen::Jit jit;
  auto build = multiply_add_builder("multiply_add", jit.target().vector_bits);
  const codegen::DumpRequest first{directory.path() / "first", "k"};
  const codegen::DumpRequest second{directory.path() / "second", "k"};
  jit.get_or_compile({"dump/cached"}, "multiply_add", build, &first);
  jit.get_or_compile({"dump/cached"}, "multiply_add", build, &second);
  for (const char* file : {"k.ll", "k.opt.ll", "k.s"})
    CHECK(read_text(first.folder / file) == read_text(second.folder / file));
}

TEST_CASE("the width override shows in the registers: xmm only at 128, ymm at 256, zmm at 512") {
  ScratchDirectory directory("dump-width");
  for (int bits : codegen::kVectorBitsChoices) {
    CAPTURE(bits);
    codegen::Jit jit(options_with_width(bits));
    const codegen::DumpRequest dump{directory.path(), "k" + std::to_string(bits)};
    jit.get_or_compile({"dump/width"}, "multiply_add", multiply_add_builder("multiply_add", bits),
                       &dump);
    const auto assembly = read_text(directory.path() / ("k" + std::to_string(bits) + ".s"));
    CHECK(contains(assembly, "%xmm"));  // the scalar tail
    const bool has_avx512 = jit.target().native_vector_bits >= 512;
    if (bits == 128) CHECK_FALSE(contains(assembly, "%ymm"));
    if (bits == 256 || (bits == 512 && !has_avx512)) CHECK(contains(assembly, "%ymm"));
    CHECK(contains(assembly, "%zmm") == (bits == 512 && has_avx512));
  }
}

TEST_CASE("an unwritable dump folder warns and does not throw") {
  ScratchDirectory directory("dump-unwritable");
  const auto blocker = directory.path() / "file";
  { std::ofstream(blocker) << "not a directory"; }
  codegen::Jit jit;
  const codegen::DumpRequest dump{blocker / "sub", "k"};
  auto kernel = jit.get_or_compile({"dump/unwritable"}, "multiply_add",
                                   multiply_add_builder("multiply_add", 128), &dump);
  CHECK(kernel);
  CHECK_FALSE(std::filesystem::exists(blocker / "sub"));
}
