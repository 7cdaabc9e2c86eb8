// B packed ahead of time (pack_b, GemmArgs::packed_b): gemm() reading the panels gives
// reference_gemm()'s bits on both paths, every width and instruction set the CPU has, one and two
// threads, the sizes of few rows (m = 1..33) with n and k off the register tile, every layout of A
// and B, several cache blocks in every dimension, 16-bit B, the store stage and the epilogue on
// finished tiles; a panel width or a batch the panels do not fit is refused.
#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

template <class T>
tk::KernelInfo kernel_of(const tk::GemmOptions& options) {
  return sizeof(T) == 4 ? tk::describe_float_kernel(options) : tk::describe_double_kernel(options);
}

TEST_CASE_TEMPLATE("packed B: rows 1 to 33, n and k off the tile, at every width and on both paths", T, float,
                   double) {
  for (int bits : all_widths)
    for (bool unpacked : {true, false}) {
      tk::GemmOptions options;
      options.vector_bits = bits;
      options.allow_unpacked_path = unpacked;
      const std::int64_t nr = kernel_of<T>(options).nr;
      for (std::int64_t m = 1; m <= 33; ++m)
        for (std::int64_t n : {std::int64_t{1}, nr - 1, nr + 3, 2 * nr + 5})
          for (std::int64_t k : {1, 7, 50}) {
            Problem p;
            p.m = m;
            p.n = n;
            p.k = k;
            p.b_layout = Layout::column_major;  // x·Wᵀ with W row-major: a dense layer
            p.b_packed_ahead = true;
            p.c_padding = 3;
            REQUIRE(matches_reference<T>(p, options));
          }
    }
}

TEST_CASE_TEMPLATE("packed B: every layout of A and B, every instruction set", T, float, double) {
  for (tk::InstructionSet set : supported_instruction_sets())
    for (Layout a_layout : all_layouts)
      for (Layout b_layout : all_layouts)
        for (bool unpacked : {true, false}) {
          tk::GemmOptions options;
          options.instruction_set = set;
          options.allow_unpacked_path = unpacked;
          Problem p;
          p.m = 16;
          p.n = 45;
          p.k = 29;
          p.a_layout = a_layout;
          p.b_layout = b_layout;
          p.b_packed_ahead = true;
          REQUIRE(matches_reference<T>(p, options));
        }
}

TEST_CASE_TEMPLATE("packed B: one and two threads, batches sharing B, and several cache blocks", T, float, double) {
  int threads = 2;
  for (int bits : all_widths)
    for (int thread_count : {1, 2}) {
      tk::GemmOptions options;
      options.vector_bits = bits;
      options.minimum_parallel_work = 0;
      if (thread_count == 2) options.parallel_for = parallel_for_with(threads);
      Problem p;
      p.b_packed_ahead = true;
      p.b_layout = Layout::column_major;
      // Few rows over a wide B (the latency case), then A beyond L2 (the packed five loops).
      for (auto [m, n, k] : {std::tuple{16, 300, 129}, std::tuple{3, 97, 64}, std::tuple{700, 450, 400}}) {
        p.m = m;
        p.n = n;
        p.k = k;
        REQUIRE(matches_reference<T>(p, options));
      }
      // Batches that read one B (batch stride 0), A and C batched.
      p.m = 13;
      p.n = 37;
      p.k = 21;
      p.batch = 3;
      p.b_batch_sign = 0;
      REQUIRE(matches_reference<T>(p, options));
      // Tiny blocks: several MC, KC and NC blocks read the panels at their k offsets.
      p.batch = 1;
      p.m = 29;
      p.n = 83;
      p.k = 61;
      options.allow_unpacked_path = false;
      options.mc = 7;
      options.kc = 9;
      options.nc = 2 * kernel_of<T>(options).nr;
      REQUIRE(matches_reference<T>(p, options));
    }
}

TEST_CASE("packed B from f16 and bf16 storage: the bits of the product packing them each call") {
  std::mt19937 random(7);
  const std::int64_t m = 17, n = 41, k = 33;
  std::vector<float> a(static_cast<std::size_t>(m * k));
  for (float& x : a) x = std::uniform_real_distribution<float>(-1, 1)(random);
  for (tk::Storage storage : {tk::Storage::f16, tk::Storage::bf16}) {
    CAPTURE(static_cast<int>(storage));
    // B column-major (W row-major n x k) of 16-bit values in [-2, 2): 0x3C00 is 1.0 in f16, 0x3F80 in bf16.
    std::vector<std::uint16_t> w(static_cast<std::size_t>(n * k));
    for (std::uint16_t& x : w)
      x = static_cast<std::uint16_t>((storage == tk::Storage::f16 ? 0x3C00 : 0x3F80) + random() % 256) |
          static_cast<std::uint16_t>((random() & 1) << 15);
    tk::GemmArgs<float> args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.a = {a.data(), k, 1, 0};
    args.b.row_stride = 1;
    args.b.col_stride = k;
    args.b.storage = storage;
    args.b.narrow = w.data();
    std::vector<float> expected(static_cast<std::size_t>(m * n)), actual(expected.size());
    args.c = {expected.data(), n, 0};
    tk::gemm(args);
    std::vector<float> panels(static_cast<std::size_t>(tk::packed_b_elements(k, n, false)));
    args.packed_b = {panels.data(), tk::pack_b(args.b, k, n, {}, panels.data())};
    args.c.data = actual.data();
    tk::gemm(args);
    CHECK(std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)) == 0);
  }
}

// The store stage and an epilogue that checks each region's values and counts its elements.
struct Finished {
  const std::vector<float>* expected = nullptr;
  std::int64_t n = 0;
  std::vector<int> visits;
  bool final = true;
  static void call(void* context, float* c, std::int64_t ldc, std::int64_t row0, std::int64_t col0, std::int64_t rows,
                   std::int64_t cols, std::int64_t) {
    auto* self = static_cast<Finished*>(context);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < cols; ++j) {
        const auto index = static_cast<std::size_t>((row0 + r) * self->n + col0 + j);
        ++self->visits[index];
        self->final = self->final && std::memcmp(&c[r * ldc + j], &(*self->expected)[index], sizeof(float)) == 0;
      }
  }
};

TEST_CASE("packed B: the store stage and the epilogue see every finished element once, on both paths") {
  std::mt19937 random(3);
  for (bool unpacked : {true, false})
    for (auto [m, n, k] : {std::tuple{16, 200, 70}, std::tuple{33, 47, 600}, std::tuple{5, 18, 3}}) {
      CAPTURE(unpacked);
      CAPTURE(m);
      CAPTURE(n);
      Operand<float> a = make_operand<float>(m, k, 1, Layout::row_major, 1, random);
      Operand<float> b = make_operand<float>(k, n, 1, Layout::column_major, 1, random);
      std::vector<float> bias(static_cast<std::size_t>(n));
      for (float& x : bias) x = std::uniform_real_distribution<float>(-1, 1)(random);
      tk::GemmArgs<float> args;
      args.m = m;
      args.n = n;
      args.k = k;
      args.a = a.view;
      args.b = b.view;
      args.store_stage.column_bias = bias.data();
      args.store_stage.activation = tk::Activation::relu;
      std::vector<float> expected(static_cast<std::size_t>(m * n)), actual(expected.size());
      args.c = {expected.data(), n, 0};
      tk::reference_gemm(args);
      tk::GemmOptions options;
      options.allow_unpacked_path = unpacked;
      options.kc = 256;  // k = 600: three KC blocks on the packed path
      std::vector<float> panels(static_cast<std::size_t>(tk::packed_b_elements(k, n, false, options)));
      args.packed_b = {panels.data(), tk::pack_b(b.view, k, n, options, panels.data())};
      Finished hook{&expected, n, std::vector<int>(static_cast<std::size_t>(m * n), 0)};
      args.epilogue = &Finished::call;
      args.epilogue_context = &hook;
      args.c.data = actual.data();
      tk::gemm(args, options);
      CHECK(hook.final);
      CHECK(std::all_of(hook.visits.begin(), hook.visits.end(), [](int v) { return v == 1; }));
      CHECK(std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("packed B: the panel layout, and panels the call cannot read are refused") {
  const std::int64_t nr = tk::describe_float_kernel({}).nr;
  CHECK(tk::packed_b_elements(5, nr + 1, false) == 5 * 2 * nr);
  CHECK(tk::packed_b_elements(0, 3, false) == 0);
  // Panels of B = [[1, 2], [3, 4]] (k = 2, n = 2): step-major, zero padded to NR columns.
  const float b[] = {1, 2, 3, 4};
  std::vector<float> panels(static_cast<std::size_t>(tk::packed_b_elements(2, 2, false)), -1.0f);
  CHECK(tk::pack_b(tk::MatrixView<float>{b, 2, 1, 0}, 2, 2, {}, panels.data()) == nr);
  CHECK(panels[0] == 1);
  CHECK(panels[1] == 2);
  CHECK(panels[2] == 0);
  CHECK(panels[static_cast<std::size_t>(nr)] == 3);
  CHECK(panels[static_cast<std::size_t>(nr) + 1] == 4);
  CHECK(panels[static_cast<std::size_t>(2 * nr) - 1] == 0);

  std::vector<float> a(8, 1.0f), c(8, 0.0f);
  tk::GemmArgs<float> args;
  args.m = 4;
  args.n = 2;
  args.k = 2;
  args.a = {a.data(), 2, 1, 0};
  args.b = {b, 2, 1, 0};
  args.c = {c.data(), 2, 0};
  args.packed_b = {panels.data(), static_cast<int>(nr) / 2};
  CHECK_THROWS_WITH_AS(tk::gemm(args), doctest::Contains("same vector_bits"), std::invalid_argument);
  args.packed_b.panel_width = static_cast<int>(nr);
  args.batch = 2;
  args.a.batch_stride = 0;
  args.b.batch_stride = 4;
  args.c.batch_stride = 8;
  std::vector<float> c2(16);
  args.c.data = c2.data();
  CHECK_THROWS_WITH_AS(tk::gemm(args), doctest::Contains("different Bs"), std::invalid_argument);
  CHECK_THROWS_AS(tk::pack_b(tk::MatrixView<float>{b, 2, 1, 0}, 2, 2, {}, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(tk::pack_b(tk::MatrixView<float>{b, 2, 1, 0}, -1, 2, {}, panels.data()), std::invalid_argument);
}

}  // namespace
