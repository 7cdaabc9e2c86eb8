// A seeded random sweep over sizes, layouts, batches, widths, instruction sets, paths and thread
// counts: every combination the targeted tests do not pair up, still bit for bit.
#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

TEST_CASE_TEMPLATE("random products match the reference bit for bit", T, float, double) {
  std::mt19937 random(2024);
  const std::vector<tk::InstructionSet> sets = supported_instruction_sets();
  auto pick = [&](int count) { return static_cast<int>(random() % static_cast<unsigned>(count)); };
  for (int trial = 0; trial < 120; ++trial) {
    Problem p;
    p.m = 1 + pick(90);
    p.n = 1 + pick(90);
    p.k = pick(70);
    p.batch = 1 + pick(3);
    p.a_layout = all_layouts[pick(6)];
    p.b_layout = all_layouts[pick(6)];
    p.a_batch_sign = pick(3) - 1;
    p.b_batch_sign = pick(3) - 1;
    p.c_padding = pick(3);
    int threads = 1 + pick(2);
    tk::GemmOptions options;
    options.instruction_set = sets[static_cast<std::size_t>(pick(static_cast<int>(sets.size())))];
    options.vector_bits = all_widths[pick(3)];
    options.allow_unpacked_path = pick(2) == 0;
    if (pick(2) == 0) {
      options.mc = 1 + pick(40);
      options.kc = 1 + pick(30);
      options.nc = 1 + pick(70);
    }
    options.parallel_for = parallel_for_with(threads);
    options.minimum_parallel_work = 0;
    CHECK(matches_reference<T>(p, options, static_cast<std::uint32_t>(trial)));
  }
}

}  // namespace
