// Invalid arguments throw std::invalid_argument with a message naming the problem, and write
// nothing; they never crash.
#include <algorithm>
#include <stdexcept>

#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

struct ValidProduct {
  std::vector<float> a = std::vector<float>(6, 1.0f), b = std::vector<float>(6, 1.0f), c = std::vector<float>(4, 5.0f);
  tk::GemmArgs<float> args() {
    tk::GemmArgs<float> args;
    args.m = 2;
    args.n = 2;
    args.k = 3;
    args.a = {a.data(), 3, 1, 0};
    args.b = {b.data(), 2, 1, 0};
    args.c = {c.data(), 2, 4};
    return args;
  }
};

TEST_CASE("invalid arguments throw std::invalid_argument and write nothing") {
  ValidProduct product;
  tk::GemmArgs<float> negative = product.args();
  negative.k = -1;
  CHECK_THROWS_WITH_AS(tk::gemm(negative), doctest::Contains("non-negative"), std::invalid_argument);
  CHECK_THROWS_AS(tk::reference_gemm(negative), std::invalid_argument);

  tk::GemmArgs<float> null_a = product.args();
  null_a.a.data = nullptr;
  CHECK_THROWS_WITH_AS(tk::gemm(null_a), doctest::Contains("null"), std::invalid_argument);

  tk::GemmArgs<float> null_c = product.args();
  null_c.c.data = nullptr;
  CHECK_THROWS_AS(tk::gemm(null_c), std::invalid_argument);

  tk::GemmArgs<float> short_rows = product.args();
  short_rows.c.row_stride = 1;
  CHECK_THROWS_WITH_AS(tk::gemm(short_rows), doctest::Contains("row stride"), std::invalid_argument);

  tk::GemmArgs<float> overlapping_batches = product.args();
  overlapping_batches.batch = 2;
  overlapping_batches.c.batch_stride = 3;
  CHECK_THROWS_WITH_AS(tk::gemm(overlapping_batches), doctest::Contains("overlap"), std::invalid_argument);

  tk::GemmArgs<float> consumed_without_hook = product.args();
  consumed_without_hook.epilogue_consumes_c = true;
  CHECK_THROWS_WITH_AS(tk::gemm(consumed_without_hook), doctest::Contains("epilogue_consumes_c"),
                       std::invalid_argument);

  // The epilogue's reads: at most kMaxEpilogueReads, with a hook, non-null, with an element size.
  const tk::Epilogue<float> hook = [](void*, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                      std::int64_t, std::int64_t) {};
  std::vector<tk::EpilogueRead> reads(tk::kMaxEpilogueReads + 1, {product.a.data(), 12, 0, 4});
  auto with_reads = [&](int count) {
    tk::GemmArgs<float> args = product.args();
    args.epilogue = hook;
    args.epilogue_reads = reads.data();
    args.epilogue_read_count = count;
    return args;
  };
  CHECK_THROWS_WITH_AS(tk::gemm(with_reads(tk::kMaxEpilogueReads + 1)), doctest::Contains("epilogue_read_count"),
                       std::invalid_argument);
  CHECK_THROWS_AS(tk::gemm(with_reads(-1)), std::invalid_argument);
  tk::GemmArgs<float> reads_without_hook = with_reads(1);
  reads_without_hook.epilogue = nullptr;
  CHECK_THROWS_WITH_AS(tk::gemm(reads_without_hook), doctest::Contains("without an epilogue"), std::invalid_argument);
  tk::GemmArgs<float> null_list = with_reads(1);
  null_list.epilogue_reads = nullptr;
  CHECK_THROWS_WITH_AS(tk::gemm(null_list), doctest::Contains("epilogue_reads is null"), std::invalid_argument);
  reads[1].data = nullptr;
  CHECK_THROWS_WITH_AS(tk::gemm(with_reads(2)), doctest::Contains("read 1 has a null data"), std::invalid_argument);
  reads[1].data = product.b.data();
  reads[2].element_bytes = 0;
  CHECK_THROWS_WITH_AS(tk::gemm(with_reads(3)), doctest::Contains("element_bytes"), std::invalid_argument);
  CHECK_THROWS_AS(tk::reference_gemm(with_reads(3)), std::invalid_argument);

  tk::GemmOptions bad_width;
  bad_width.vector_bits = 384;
  CHECK_THROWS_WITH_AS(tk::gemm(product.args(), bad_width), doctest::Contains("vector_bits"), std::invalid_argument);

  tk::GemmOptions bad_block;
  bad_block.kc = -4;
  CHECK_THROWS_AS(tk::gemm(product.args(), bad_block), std::invalid_argument);

  for (float value : product.c) CHECK(value == 5.0f);
}

TEST_CASE("empty products are valid and k == 0 gives zeros") {
  ValidProduct product;
  tk::GemmArgs<float> empty = product.args();
  empty.m = 0;
  empty.c.data = nullptr;
  CHECK_NOTHROW(tk::gemm(empty));
  tk::GemmArgs<float> no_depth = product.args();
  no_depth.k = 0;
  no_depth.a.data = nullptr;
  no_depth.b.data = nullptr;
  tk::gemm(no_depth);
  for (float value : product.c) CHECK(value == 0.0f);

  std::vector<float> batches(3 * 40 * 50, 7.0f);
  tk::GemmArgs<float> no_depth_batched;
  no_depth_batched.m = 40;
  no_depth_batched.n = 50;
  no_depth_batched.batch = 3;
  no_depth_batched.c = {batches.data(), 50, 40 * 50};
  int two_threads = 2;
  tk::GemmOptions threaded;
  threaded.parallel_for = parallel_for_with(two_threads);
  threaded.minimum_parallel_work = 0;
  tk::gemm(no_depth_batched, threaded);
  CHECK(std::count(batches.begin(), batches.end(), 0.0f) == 3 * 40 * 50);
  std::fill(batches.begin(), batches.end(), 7.0f);
  tk::reference_gemm(no_depth_batched);
  CHECK(std::count(batches.begin(), batches.end(), 0.0f) == 3 * 40 * 50);
}

TEST_CASE("describe reports a known kernel and the CPU features") {
  const tk::KernelInfo native = tk::describe_float_kernel();
  CHECK(native.vector_bits == tk::native_vector_bits());
  CHECK(native.mr > 0);
  CHECK(native.nr > 0);
  CHECK(native.mc % native.mr == 0);
  CHECK(native.nc % native.nr == 0);
  CHECK(tk::cpu_supports(tk::InstructionSet::portable));
  if (!tk::cpu_supports(tk::InstructionSet::avx512)) {
    tk::GemmOptions unsupported;
    unsupported.instruction_set = tk::InstructionSet::avx512;
    ValidProduct product;
    CHECK_THROWS_AS(tk::gemm(product.args(), unsupported), std::invalid_argument);
  }
}

}  // namespace
