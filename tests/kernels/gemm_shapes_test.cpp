// gemm() against reference_gemm(), bit for bit: sizes, every edge-tile remainder of every tile
// shape, every ISA and width, block boundaries and thread counts.
#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

template <class T>
tk::KernelInfo describe_kernel(const tk::GemmOptions& options) {
  if constexpr (sizeof(T) == 4) return tk::describe_float_kernel(options);
  else return tk::describe_double_kernel(options);
}

TEST_CASE_TEMPLATE("gemm matches the reference on sizes 0, 1 and primes", T, float, double) {
  const std::int64_t sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 37, 61};
  for (std::int64_t m : sizes)
    for (std::int64_t n : sizes)
      for (std::int64_t k : {std::int64_t{0}, std::int64_t{1}, std::int64_t{17}}) {
        Problem p;
        p.m = m;
        p.n = n;
        p.k = k;
        CHECK(matches_reference<T>(p, {}));
      }
  Problem prime;
  prime.m = 101;
  prime.n = 97;
  prime.k = 89;
  CHECK(matches_reference<T>(prime, {}));
}

TEST_CASE_TEMPLATE("every edge-tile remainder of every tile shape matches the reference", T, float, double) {
  for (tk::InstructionSet set : supported_instruction_sets()) {
    for (int bits : all_widths) {
      for (bool unpacked : {false, true}) {
        tk::GemmOptions options;
        options.instruction_set = set;
        options.vector_bits = bits;
        options.allow_unpacked_path = unpacked;
        const tk::KernelInfo kernel = describe_kernel<T>(options);
        CAPTURE(kernel.instruction_set);
        CAPTURE(bits);
        CAPTURE(unpacked);
        // Up to three row blocks and a tail, after one and after two full blocks: the tail as
        // one block of its own row count, or with 2 or 1 rows of the last full block when it
        // has 2 or 3 rows (unpacked_gemm.hpp).
        for (std::int64_t m = 1; m <= 3 * kernel.mr + 1; ++m) {
          Problem p;
          p.m = m;
          p.n = kernel.nr + 1 + m % kernel.nr;
          p.k = 1 + m % 4;
          CHECK(matches_reference<T>(p, options));
        }
        for (std::int64_t n = 1; n <= 2 * kernel.nr + 1; ++n) {
          Problem p;
          p.m = kernel.mr + 1 + n % kernel.mr;
          p.n = n;
          p.k = 3;
          p.b_layout = n % 2 == 0 ? Layout::row_major : Layout::column_major;
          CHECK(matches_reference<T>(p, options));
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("the native default blocking's MC, KC and NC boundaries match the reference", T, float, double) {
  tk::GemmOptions options;
  options.allow_unpacked_path = false;  // these sizes would otherwise skip packing and blocking
  const tk::KernelInfo kernel = describe_kernel<T>(options);
  for (std::int64_t delta : {-1, 0, 1}) {
    Problem rows;
    rows.m = kernel.mc + delta;
    rows.n = kernel.nr + 3;
    rows.k = 9;
    CHECK(matches_reference<T>(rows, options));
    Problem depth;
    depth.m = kernel.mr + 2;
    depth.n = kernel.nr + 5;
    depth.k = kernel.kc + delta;
    CHECK(matches_reference<T>(depth, options));
    Problem columns;
    columns.m = 3;
    columns.n = kernel.nc + delta;
    columns.k = 4;
    CHECK(matches_reference<T>(columns, options));
  }
}

TEST_CASE_TEMPLATE("several blocks in every dimension match the reference at every width", T, float, double) {
  for (tk::InstructionSet set : supported_instruction_sets()) {
    for (int bits : all_widths) {
      tk::GemmOptions options;
      options.instruction_set = set;
      options.vector_bits = bits;
      const tk::KernelInfo table = describe_kernel<T>(options);
      options.allow_unpacked_path = false;
      options.mc = 2 * table.mr;
      options.kc = 7;
      options.nc = 2 * table.nr;
      for (std::int64_t delta : {-1, 0, 1}) {
        Problem p;
        p.m = 3 * options.mc + delta;
        p.n = 2 * options.nc + delta;
        p.k = 3 * options.kc + delta;
        CHECK(matches_reference<T>(p, options));
      }
    }
  }
}

TEST_CASE_TEMPLATE("one and two threads give the reference's bits at every width", T, float, double) {
  const Problem shapes[] = {
      {120, 130, 40, 1, Layout::row_major, Layout::row_major, 1, 1, 0},
      {33, 700, 19, 1, Layout::column_major, Layout::row_major, 1, 1, 0},
      {700, 9, 45, 1, Layout::row_major, Layout::column_major, 1, 1, 0},
      {40, 50, 60, 3, Layout::row_major, Layout::row_major, 1, 0, 2},
  };
  for (int threads : {1, 2}) {
    for (int bits : all_widths) {
      tk::GemmOptions options;
      options.vector_bits = bits;
      options.parallel_for = parallel_for_with(threads);
      options.minimum_parallel_work = 0;
      for (const Problem& p : shapes) CHECK(matches_reference<T>(p, options));
      options.allow_unpacked_path = false;
      options.mc = 3 * describe_kernel<T>(options).mr;
      options.kc = 11;
      for (const Problem& p : shapes) CHECK(matches_reference<T>(p, options));
    }
  }
}

}  // namespace

namespace {

struct RecordingParallelFor {
  int runs = 0;
  std::int64_t tasks = 0;
  static void run(void* context, std::int64_t n_tasks, void (*task)(void*, std::int64_t), void* task_context) {
    auto* self = static_cast<RecordingParallelFor*>(context);
    self->runs++;
    self->tasks = n_tasks;
    for (std::int64_t i = n_tasks - 1; i >= 0; --i) task(task_context, i);  // any order is allowed
  }
};

TEST_CASE("the parallel-for is used once, with whole multiples of the thread count, above the threshold") {
  std::vector<float> a(300 * 200, 1.0f), b(200 * 310, 1.0f), c(300 * 310);
  tk::GemmArgs<float> args;
  args.m = 300;
  args.n = 310;
  args.k = 200;
  args.a = {a.data(), 200, 1, 0};
  args.b = {b.data(), 310, 1, 0};
  args.c = {c.data(), 310, 0};
  for (bool unpacked : {false, true}) {
    RecordingParallelFor recorder;
    tk::GemmOptions options;
    options.allow_unpacked_path = unpacked;
    options.parallel_for = {&RecordingParallelFor::run, &recorder, 2};
    tk::gemm(args, options);
    CHECK(recorder.runs == 1);
    CHECK(recorder.tasks % 2 == 0);
    CHECK(c[0] == 200.0f);
    CHECK(c[300 * 310 - 1] == 200.0f);
    options.minimum_parallel_work = args.m * args.n * args.k + 1;
    tk::gemm(args, options);
    CHECK(recorder.runs == 1);
  }
}

}  // namespace

namespace {

TEST_CASE("the unpacked path cuts columns into up to 4 tasks per thread, with the same bits") {
  // n in column tiles of the native f32 kernel: 1 (no finer cut), 4, 8 (4 per thread), and 10 (which
  // splits evenly only in halves); batches share the 4 tasks per thread.
  const std::int64_t nr = tk::describe_float_kernel({}).nr;
  struct Case {
    std::int64_t n, batch, tasks;
  };
  const Case cases[] = {{nr, 1, 2},       {4 * nr, 1, 4},     {8 * nr, 1, 8},     {10 * nr, 1, 2},
                        {8 * nr - 3, 1, 8}, {8 * nr, 2, 8},     {8 * nr, 3, 6},     {8 * nr, 8, 8}};
  for (const Case& test_case : cases) {
    CAPTURE(test_case.n);
    CAPTURE(test_case.batch);
    Problem p;
    p.m = 45;
    p.k = 37;
    p.n = test_case.n;
    p.batch = test_case.batch;
    RecordingParallelFor recorder;
    tk::GemmOptions options;
    options.minimum_parallel_work = 0;
    options.parallel_for = {&RecordingParallelFor::run, &recorder, 2};
    CHECK(matches_reference<float>(p, options));
    CHECK(recorder.tasks == test_case.tasks);
    int threads = 2;
    options.parallel_for = parallel_for_with(threads);
    CHECK(matches_reference<float>(p, options));
    CHECK(matches_reference<double>(p, options));
  }
}

}  // namespace
