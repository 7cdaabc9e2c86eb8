// Every operand layout and stride sign, and batches (strided, broadcast, reversed), read in place.
#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

TEST_CASE_TEMPLATE("every layout of A and B matches the reference at every width", T, float, double) {
  for (Layout a_layout : all_layouts) {
    for (Layout b_layout : all_layouts) {
      for (int bits : all_widths) {
        tk::GemmOptions options;
        options.vector_bits = bits;
        Problem p;
        p.m = 23;
        p.n = 41;
        p.k = 19;
        p.a_layout = a_layout;
        p.b_layout = b_layout;
        p.c_padding = 3;
        CHECK(matches_reference<T>(p, options));
        options.allow_unpacked_path = false;
        options.kc = 8;
        CHECK(matches_reference<T>(p, options));
        Problem skinny = p;
        skinny.n = 3;
        skinny.k = 50;
        CHECK(matches_reference<T>(skinny, {}));
        Problem thin = p;
        thin.m = 2;
        CHECK(matches_reference<T>(thin, {}));
      }
    }
  }
}

// An A whose row elements lie more than 2 KiB apart (its transpose is row-major with over 2 KiB
// a row: the weight gradient x^T * dh) and that several column blocks read takes the packed path
// though it fits the unpacked path's size (gemm.cpp, takes_unpacked_path); a reversed one too.
TEST_CASE_TEMPLATE("a transposed A with rows far apart matches the reference at every width", T, float, double) {
  for (Layout a_layout : {Layout::column_major, Layout::reversed_both})
    for (int bits : all_widths)
      for (std::int64_t n : {std::int64_t{20}, std::int64_t{70}}) {
        tk::GemmOptions options;
        options.vector_bits = bits;
        Problem p;
        p.m = 2048 / static_cast<std::int64_t>(sizeof(T)) + 37;
        p.n = n;
        p.k = 9;
        p.a_layout = a_layout;
        CAPTURE(bits);
        CAPTURE(n);
        CHECK(matches_reference<T>(p, options));
      }
}

// Rows of A a multiple of 4 KiB apart share an L1 set, and the unpacked path reads them in blocks
// of at most 8 rows (7 + 7 for the 14-row tile, kernel_family.hpp's unpacked_block_rows); the
// tails after those blocks, and a single column block of an A above 1 MiB (300 rows), which the
// unpacked path takes too, must give the reference's bits as any other split does.
TEST_CASE_TEMPLATE("rows of A 4 KiB apart, read in smaller row blocks, match the reference at every width", T, float,
                   double) {
  constexpr std::int64_t page_elements = 4096 / static_cast<std::int64_t>(sizeof(T));
  for (Layout a_layout : {Layout::row_major, Layout::reversed_rows})
    for (int bits : all_widths)
      for (std::int64_t m : {std::int64_t{7}, std::int64_t{16}, std::int64_t{37}, std::int64_t{100}, std::int64_t{300}})
        for (std::int64_t n : {std::int64_t{10}, std::int64_t{16}, std::int64_t{45}}) {
          tk::GemmOptions options;
          options.vector_bits = bits;
          Problem p;
          p.m = m;
          p.n = n;
          p.k = m == 100 ? 2 * page_elements : page_elements;
          p.a_layout = a_layout;
          CAPTURE(bits);
          CHECK(matches_reference<T>(p, options));
        }
}

TEST_CASE_TEMPLATE("batched products with strided, broadcast and reversed batches match the reference", T, float,
                   double) {
  int two_threads = 2;
  for (int a_sign : {1, 0, -1}) {
    for (int b_sign : {1, 0, -1}) {
      for (Layout layout : {Layout::row_major, Layout::column_major, Layout::reversed_both}) {
        Problem p;
        p.m = 17;
        p.n = 35;
        p.k = 13;
        p.batch = 3;
        p.a_layout = layout;
        p.b_layout = Layout::strided;
        p.a_batch_sign = a_sign;
        p.b_batch_sign = b_sign;
        p.c_padding = 1;
        CHECK(matches_reference<T>(p, {}));
        tk::GemmOptions threaded;
        threaded.parallel_for = parallel_for_with(two_threads);
        threaded.minimum_parallel_work = 0;
        p.m = 70;
        p.k = 70;
        CHECK(matches_reference<T>(p, threaded));
      }
    }
  }
  Problem empty_batch;
  empty_batch.batch = 0;
  CHECK(matches_reference<T>(empty_batch, {}));
}

}  // namespace
