// The epilogue contract: called exactly once for every element of C (edge tiles and k == 0 too),
// with final values, a pointer at (row0, col0) of its batch, and from several threads at once.
// A hook that consumes C (GemmArgs::epilogue_consumes_c) gets the values in a scratch buffer
// instead, C untouched, except for k == 0 and k above KC, and writes C itself.
#include <mutex>
#include <stdexcept>

#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

template <class T>
struct CountingEpilogue {
  T* c_base = nullptr;
  std::int64_t m = 0, n = 0, ldc = 0, c_batch_stride = 0;
  const std::vector<T>* expected = nullptr;
  std::vector<std::atomic<int>> visits;
  std::mutex mutex;
  bool pointers_right = true;
  bool values_final = true;
  std::int64_t widest = 0;  // the most columns one call covered
  // Consuming C: what C holds before gemm() (the hook must see it still there when its region
  // comes from the scratch), and whether every region came from the scratch.
  bool consumes = false;
  T marker = T(0);
  bool c_untouched = true;
  bool all_from_scratch = true;

  static void call(void* context, T* c, std::int64_t ldc, std::int64_t row0, std::int64_t col0, std::int64_t rows,
                   std::int64_t cols, std::int64_t batch) {
    auto* self = static_cast<CountingEpilogue*>(context);
    const std::int64_t offset = batch * self->c_batch_stride + row0 * self->ldc + col0;
    T* const c_region = self->c_base + offset;
    const bool in_c = c == c_region && ldc == self->ldc;
    const bool pointer_right = (in_c || self->consumes) && rows > 0 && cols > 0 && row0 + rows <= self->m &&
                               col0 + cols <= self->n;
    bool final = true, untouched = true;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < cols; ++j) {
        self->visits[static_cast<std::size_t>(batch * self->m * self->n + (row0 + r) * self->n + col0 + j)]++;
        final = final && std::memcmp(&c[r * ldc + j], &(*self->expected)[offset + r * self->ldc + j], sizeof(T)) == 0;
        if (self->consumes && !in_c) {
          untouched = untouched && std::memcmp(&c_region[r * self->ldc + j], &self->marker, sizeof(T)) == 0;
          c_region[r * self->ldc + j] = c[r * ldc + j];
        }
      }
    const std::lock_guard<std::mutex> lock(self->mutex);
    self->pointers_right = self->pointers_right && pointer_right;
    self->values_final = self->values_final && final;
    self->widest = std::max(self->widest, cols);
    self->c_untouched = self->c_untouched && untouched;
    self->all_from_scratch = self->all_from_scratch && !in_c;
  }
};

// Operands an epilogue would read along with C (GemmArgs::epilogue_reads), for the kernels to
// prefetch: one whose rows are 5 elements longer than C's and start one element into its buffer
// (rows across line boundaries), one with its rows in reverse order (negative row stride), one of
// doubles.
struct Reads {
  std::vector<float> residual;
  std::vector<float> reversed;
  std::vector<double> wide;
  std::vector<tk::EpilogueRead> list;

  Reads(std::int64_t m, std::int64_t n, std::int64_t batch) {
    const std::int64_t row = n + 5;
    residual.assign(static_cast<std::size_t>(batch * m * row + 1), 1.0f);
    reversed.assign(static_cast<std::size_t>(batch * m * n), 2.0f);
    wide.assign(static_cast<std::size_t>(batch * m * n), 3.0);
    const std::int64_t f = sizeof(float), d = sizeof(double);
    list.push_back({residual.data() + 1, row * f, m * row * f, f});
    list.push_back({reversed.data() + (m - 1) * n, -n * f, m * n * f, f});
    list.push_back({wide.data(), n * d, m * n * d, d});
  }
};

// Returns the most columns one epilogue call covered.
template <class T>
std::int64_t check_epilogue(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, const tk::GemmOptions& options,
                            bool consumes = false, bool with_reads = false) {
  std::mt19937 random(7);
  Operand<T> a = make_operand<T>(m, k, batch, Layout::row_major, 1, random);
  Operand<T> b = make_operand<T>(k, n, batch, Layout::column_major, 0, random);
  const std::int64_t ldc = n + 2;
  const std::int64_t c_batch_stride = m * ldc;
  std::vector<T> expected(static_cast<std::size_t>(c_batch_stride * batch), T(0));
  std::vector<T> actual(expected);

  tk::GemmArgs<T> args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  args.a = a.view;
  args.b = b.view;
  args.c = {expected.data(), ldc, c_batch_stride};
  tk::reference_gemm(args);

  CountingEpilogue<T> epilogue;
  epilogue.c_base = actual.data();
  epilogue.m = m;
  epilogue.n = n;
  epilogue.ldc = ldc;
  epilogue.c_batch_stride = c_batch_stride;
  epilogue.expected = &expected;
  epilogue.visits = std::vector<std::atomic<int>>(static_cast<std::size_t>(batch * m * n));
  epilogue.consumes = consumes;
  epilogue.marker = T(-7.25);
  std::fill(actual.begin(), actual.end(), epilogue.marker);
  args.c.data = actual.data();
  args.epilogue = &CountingEpilogue<T>::call;
  args.epilogue_context = &epilogue;
  args.epilogue_consumes_c = consumes;
  const Reads reads(m, n, batch);
  if (with_reads) {
    args.epilogue_reads = reads.list.data();
    args.epilogue_read_count = static_cast<int>(reads.list.size());
  }
  tk::gemm(args, options);
  if (consumes) {
    CHECK(epilogue.c_untouched);
    // Every test's k stays below the default KC blocks (256 and up); above an overridden KC the
    // packed path hands over C itself.
    if (k > 0 && (options.kc == 0 || k <= options.kc)) CHECK(epilogue.all_from_scratch);
    if (k == 0) CHECK_FALSE(epilogue.all_from_scratch);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t i = 0; i < m; ++i)
        CHECK(std::memcmp(&actual[b * c_batch_stride + i * ldc], &expected[b * c_batch_stride + i * ldc],
                          static_cast<std::size_t>(n) * sizeof(T)) == 0);
  }

  std::int64_t wrong = 0;
  for (const std::atomic<int>& visits : epilogue.visits) wrong += visits.load() != 1;
  CHECK(wrong == 0);
  CHECK(epilogue.pointers_right);
  CHECK(epilogue.values_final);
  return epilogue.widest;
}

// Both contracts: the hook sees C itself, or (consuming C) a scratch copy while C keeps what it held.
// With the epilogue's reads given the kernels prefetch them, and nothing else may change: the same
// checks hold on the same shapes (edge tiles, k == 0, k above KC, batches, threads).
TEST_CASE_TEMPLATE("the epilogue sees every element exactly once, with its final value", T, float, double) {
  int two_threads = 2;
  for (bool with_reads : {false, true})
    for (bool consumes : {false, true})
      for (int bits : all_widths) {
        tk::GemmOptions options;
        options.vector_bits = bits;
        CAPTURE(bits);
        CAPTURE(consumes);
        CAPTURE(with_reads);
        auto check = [&](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
          return check_epilogue<T>(m, n, k, batch, options, consumes, with_reads);
        };
        check(1, 1, 1, 1);
        check(29, 37, 0, 2);
        check(31, 67, 23, 2);
        check(5, 3, 40, 1);
        check(43, 2 * 16 * 32 + 19, 13, 1);  // several groups of column blocks
        check(17, 64, 3, 1);                 // k below the rows a k loop prefetches
        options.allow_unpacked_path = false;
        check(47, 101, 29, 2);
        options.kc = 10;
        options.mc = 1;
        options.nc = 1;
        check(45, 70, 25, 1);
        check(29, 37, 0, 2);
        options.allow_unpacked_path = true;
        options.parallel_for = parallel_for_with(two_threads);
        options.minimum_parallel_work = 0;
        check(97, 83, 41, 3);
        options.allow_unpacked_path = false;
        check(61, 5, 100, 2);
        options.kc = 0;
        check(61, 5, 100, 2);
      }
}

// The packed path calls the epilogue once per group of micro-panels of a block, not per micro-tile
// (a residual read 14 rows x 128 bytes at a time was what made the 8192-row wide layer of
// docs/epilogues.md slow), and the unpacked path once per row of column blocks.
TEST_CASE_TEMPLATE("epilogue regions span several micro-panels on both paths", T, float, double) {
  for (int bits : all_widths) {
    tk::GemmOptions options;
    options.vector_bits = bits;
    CAPTURE(bits);
    const tk::KernelInfo info =
        sizeof(T) == 4 ? tk::describe_float_kernel(options) : tk::describe_double_kernel(options);
    CHECK(check_epilogue<T>(30, 8 * info.nr, 7, 1, options) >= 2 * info.nr);
    options.allow_unpacked_path = false;
    CHECK(check_epilogue<T>(30, 8 * info.nr, 7, 1, options) >= 2 * info.nr);
  }
}

}  // namespace

namespace {

// Throws from every call but the one on the first tile, whichever way the product is split: by
// rows (row0 > 0) or, as two threads split a 64 x 64 product, by columns (col0 > 0).
struct ThrowingEpilogue {
  static void call(void*, float*, std::int64_t, std::int64_t row0, std::int64_t col0, std::int64_t, std::int64_t,
                   std::int64_t) {
    if (row0 > 0 || col0 > 0) throw std::runtime_error("epilogue failed");
  }
};

TEST_CASE("an exception thrown by the epilogue reaches the caller, serial and threaded") {
  std::vector<float> a(64 * 64, 1.0f), b(64 * 64, 1.0f), c(64 * 64);
  tk::GemmArgs<float> args;
  args.m = args.n = args.k = 64;
  args.a = {a.data(), 64, 1, 0};
  args.b = {b.data(), 64, 1, 0};
  args.c = {c.data(), 64, 0};
  args.epilogue = &ThrowingEpilogue::call;
  CHECK_THROWS_WITH_AS(tk::gemm(args), "epilogue failed", std::runtime_error);
  int two_threads = 2;
  tk::GemmOptions threaded;
  threaded.parallel_for = parallel_for_with(two_threads);
  threaded.minimum_parallel_work = 0;
  threaded.allow_unpacked_path = false;
  CHECK_THROWS_WITH_AS(tk::gemm(args, threaded), "epilogue failed", std::runtime_error);
}

// An epilogue that runs a second product on each finished tile (a nested call on the same thread
// must get its own workspace and leave the outer one intact).
struct NestedEpilogue {
  std::vector<float>* scratch = nullptr;
  static void call(void* context, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                   std::int64_t) {
    auto* self = static_cast<NestedEpilogue*>(context);
    std::vector<float> a(20 * 30, 0.5f), b(30 * 40, 0.25f);
    tk::GemmArgs<float> inner;
    inner.m = 20;
    inner.n = 40;
    inner.k = 30;
    inner.a = {a.data(), 30, 1, 0};
    inner.b = {b.data(), 40, 1, 0};
    inner.c = {self->scratch->data(), 40, 0};
    tk::GemmOptions packed;
    packed.allow_unpacked_path = false;
    tk::gemm(inner, packed);
  }
};

TEST_CASE("a gemm() called from an epilogue leaves the outer product intact") {
  std::vector<float> scratch(20 * 40);
  NestedEpilogue nested{&scratch};
  Problem p;
  p.m = 45;
  p.n = 70;
  p.k = 33;
  std::mt19937 random(3);
  Operand<float> a = make_operand<float>(p.m, p.k, 1, Layout::row_major, 1, random);
  Operand<float> b = make_operand<float>(p.k, p.n, 1, Layout::row_major, 1, random);
  std::vector<float> expected(45 * 70), actual(45 * 70);
  tk::GemmArgs<float> args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.a = a.view;
  args.b = b.view;
  args.c = {expected.data(), 70, 0};
  tk::reference_gemm(args);
  args.c.data = actual.data();
  args.epilogue = &NestedEpilogue::call;
  args.epilogue_context = &nested;
  tk::GemmOptions packed;
  packed.allow_unpacked_path = false;
  tk::gemm(args, packed);
  CHECK(std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)) == 0);
  CHECK(scratch[0] == 30 * 0.5f * 0.25f);
}

}  // namespace
