// Tiers (jit.hpp): a quick first compile, an optimized one in the background once the kernel is
// used again, the same bits from both, and the disk cache keeping the best tier.
#include <doctest/doctest.h>

#include <filesystem>

#include <tensorjit/codegen/jit.hpp>

#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

namespace {

codegen::JitOptions tiered(const std::filesystem::path& cache_dir = {}) {
  codegen::JitOptions options;
  options.tiered = true;
  options.cache_dir = cache_dir;
  return options;
}

codegen::KernelHandle multiply_add(codegen::Jit& jit, const std::string& key,
                                   const codegen::DumpRequest* dump = nullptr) {
  return jit.get_or_compile({key}, "kernel", multiply_add_builder("kernel", jit.target().vector_bits), dump);
}

}  // namespace

TEST_CASE("a tiered kernel runs quick code first and optimized code from its second use on") {
  codegen::Jit jit(tiered());
  const auto compiles_before = codegen::compile_count();
  auto kernel = multiply_add(jit, "tiers/a");
  CHECK(kernel->tier() == codegen::CodeTier::quick);
  const void* quick_code = kernel->address();

  const auto expected = expected_multiply_add(1003);
  CHECK(same_bits(run_multiply_add(*kernel, 1003), expected));  // first use: no tier-up
  codegen::wait_for_tier_ups();
  CHECK(kernel->tier() == codegen::CodeTier::quick);
  CHECK(jit.stats().tier_ups == 0);

  CHECK(same_bits(run_multiply_add(*kernel, 1003), expected));  // second use asks for it
  codegen::wait_for_tier_ups();
  CHECK(kernel->tier() == codegen::CodeTier::optimized);
  CHECK(kernel->address() != quick_code);
  CHECK(same_bits(run_multiply_add(*kernel, 1003), expected));
  for (std::size_t count : {0, 1, 15, 16, 17, 64, 999})
    CHECK(same_bits(run_multiply_add(*kernel, count), expected_multiply_add(count)));

  const auto stats = jit.stats();
  CHECK(stats.compiles == 1);
  CHECK(stats.tier_ups == 1);
  CHECK(codegen::compile_count() == compiles_before + 1);  // a tier-up is not a compile
  for (int use = 0; use < 5; ++use) run_multiply_add(*kernel, 10);
  codegen::wait_for_tier_ups();
  CHECK(jit.stats().tier_ups == 1);  // once
}

TEST_CASE("a kernel asked for with a dump is compiled optimized at once, and a quick one tiers up for it") {
  ScratchDirectory folder("tiers-dump");
  codegen::Jit jit(tiered());
  codegen::DumpRequest dump{folder.path(), "kernel-000"};
  auto dumped = multiply_add(jit, "tiers/dumped", &dump);
  CHECK(dumped->tier() == codegen::CodeTier::optimized);
  CHECK(std::filesystem::exists(folder.path() / "kernel-000.s"));

  auto quick = multiply_add(jit, "tiers/quick-then-dumped");
  CHECK(quick->tier() == codegen::CodeTier::quick);
  codegen::DumpRequest second{folder.path(), "kernel-001"};
  auto again = multiply_add(jit, "tiers/quick-then-dumped", &second);  // a memory hit, dumped
  CHECK(again == quick);
  CHECK(quick->tier() == codegen::CodeTier::optimized);  // the dump shows the code that runs
  auto code = [&](const char* name) {  // the disassembly, without its header line naming the kernel
    const std::string text = read_text(folder.path() / name);
    return text.substr(text.find('\n'));
  };
  CHECK(code("kernel-001.s") == code("kernel-000.s"));
}

TEST_CASE("the disk cache keeps the best tier: a new Jit loads optimized code once a kernel tiered up") {
  ScratchDirectory directory("tiers-disk");
  const auto expected = expected_multiply_add(1001);
  {
    codegen::Jit first(tiered(directory.path()));
    auto kernel = multiply_add(first, "tiers/disk");
    CHECK(first.stats().disk_writes == 1);  // the quick object
    run_multiply_add(*kernel, 8);
    run_multiply_add(*kernel, 8);
    codegen::wait_for_tier_ups();
    CHECK(first.stats().disk_writes == 2);  // and the optimized one
  }
  codegen::Jit second(tiered(directory.path()));
  const auto compiles_before = codegen::compile_count();
  auto kernel = multiply_add(second, "tiers/disk");
  CHECK(kernel->loaded_from_disk());
  CHECK(kernel->tier() == codegen::CodeTier::optimized);
  CHECK(codegen::compile_count() == compiles_before);
  CHECK(same_bits(run_multiply_add(*kernel, 1001), expected));
}

TEST_CASE("a quick kernel loaded from disk still tiers up when used again") {
  ScratchDirectory directory("tiers-disk-quick");
  {
    codegen::Jit first(tiered(directory.path()));
    multiply_add(first, "tiers/disk-quick");  // used never: only its quick object is written
  }
  codegen::Jit second(tiered(directory.path()));
  auto kernel = multiply_add(second, "tiers/disk-quick");
  CHECK(kernel->loaded_from_disk());
  CHECK(kernel->tier() == codegen::CodeTier::quick);
  CHECK(second.stats().compiles == 0);
  const auto expected = expected_multiply_add(77);
  CHECK(same_bits(run_multiply_add(*kernel, 77), expected));
  CHECK(same_bits(run_multiply_add(*kernel, 77), expected));
  kernel->wait_for_final_tier();
  CHECK(kernel->tier() == codegen::CodeTier::optimized);
  CHECK(same_bits(run_multiply_add(*kernel, 77), expected));
}

TEST_CASE("a tier-up outlives the kernel's handles and its eviction from the cache") {
  codegen::JitOptions options = tiered();
  options.memory_cache_capacity = 1;
  codegen::Jit jit(options);
  {
    auto kernel = multiply_add(jit, "tiers/orphan");
    run_multiply_add(*kernel, 8);
    run_multiply_add(*kernel, 8);  // queued; the handle goes now
  }
  multiply_add(jit, "tiers/evicts-the-orphan");
  CHECK(jit.stats().evictions == 1);
  codegen::wait_for_tier_ups();  // the job held the kernel; its code is freed after it ran
  CHECK(jit.stats().tier_ups == 1);
}
