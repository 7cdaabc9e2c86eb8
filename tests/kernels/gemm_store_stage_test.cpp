// The store stage: a column bias and relu applied to the accumulators before the store. gemm()
// must give reference_gemm()'s bits on every path (full tiles, edge tiles, the unpacked kernels,
// several KC blocks, k == 0, threads, batches with per-batch or shared biases), and the reference
// itself must be the element's chain + bias, then relu as the contract states it.
#include <cmath>

#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

template <class T>
struct StageCase {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  bool bias = true;
  bool per_batch_bias = false;
  tk::Activation activation = tk::Activation::relu;
};

// A bias with a NaN (kept by relu) and both signs, one row per batch when per_batch_bias.
template <class T>
std::vector<T> make_bias(const StageCase<T>& s, std::mt19937& random) {
  std::vector<T> bias(static_cast<std::size_t>(s.n * (s.per_batch_bias ? s.batch : 1)));
  std::uniform_real_distribution<T> values(T(-2), T(2));
  for (T& value : bias) value = values(random);
  if (s.n > 3) bias[3] = std::numeric_limits<T>::quiet_NaN();
  return bias;
}

template <class T>
tk::GemmArgs<T> stage_args(const StageCase<T>& s, const Operand<T>& a, const Operand<T>& b, const std::vector<T>& bias,
                           T* c, std::int64_t ldc) {
  tk::GemmArgs<T> args;
  args.m = s.m;
  args.n = s.n;
  args.k = s.k;
  args.batch = s.batch;
  args.a = a.view;
  args.b = b.view;
  args.c = {c, ldc, std::max<std::int64_t>(s.m * ldc, 1)};
  if (s.bias) args.store_stage.column_bias = bias.data();
  args.store_stage.column_bias_batch_stride = s.per_batch_bias ? s.n : 0;
  args.store_stage.activation = s.activation;
  return args;
}

// gemm() with the stage against reference_gemm() with the stage, all of C (padding too) bit for bit.
template <class T>
bool stage_matches_reference(const StageCase<T>& s, const tk::GemmOptions& options) {
  std::mt19937 random(11);
  Operand<T> a = make_operand<T>(s.m, s.k, s.batch, Layout::row_major, 1, random);
  Operand<T> b = make_operand<T>(s.k, s.n, s.batch, Layout::column_major, 1, random);
  const std::vector<T> bias = make_bias(s, random);
  const std::int64_t ldc = s.n + 3;
  const std::size_t size = static_cast<std::size_t>(std::max<std::int64_t>(s.m * ldc, 1) * s.batch);
  std::vector<T> expected(size, T(7)), actual(size, T(7));
  tk::reference_gemm(stage_args(s, a, b, bias, expected.data(), ldc));
  tk::gemm(stage_args(s, a, b, bias, actual.data(), ldc), options);
  return std::memcmp(expected.data(), actual.data(), size * sizeof(T)) == 0;
}

TEST_CASE_TEMPLATE("the reference's store stage is the chain plus the column's bias, then relu", T, float, double) {
  StageCase<T> s;
  s.m = 5;
  s.n = 9;
  s.k = 4;
  s.batch = 2;
  s.per_batch_bias = true;
  std::mt19937 random(5);
  Operand<T> a = make_operand<T>(s.m, s.k, s.batch, Layout::row_major, 1, random);
  Operand<T> b = make_operand<T>(s.k, s.n, s.batch, Layout::row_major, 1, random);
  const std::vector<T> bias = make_bias(s, random);
  std::vector<T> plain(static_cast<std::size_t>(s.m * s.n * s.batch)), staged(plain.size());
  StageCase<T> none = s;
  none.bias = false;
  none.activation = tk::Activation::none;
  tk::reference_gemm(stage_args(none, a, b, bias, plain.data(), s.n));
  tk::reference_gemm(stage_args(s, a, b, bias, staged.data(), s.n));
  int wrong = 0, zeroed = 0;
  for (std::int64_t batch = 0; batch < s.batch; ++batch)
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        const std::size_t at = static_cast<std::size_t>((batch * s.m + i) * s.n + j);
        const T sum = plain[at] + bias[static_cast<std::size_t>(batch * s.n + j)];
        const T want = std::isnan(sum) || sum > T(0) ? sum : T(0);
        wrong += std::memcmp(&want, &staged[at], sizeof(T)) != 0;
        zeroed += staged[at] == T(0) && !std::signbit(staged[at]);
      }
  CHECK(wrong == 0);
  CHECK(zeroed > 0);  // relu did cut some values
  CHECK(std::isnan(staged[3]));
}

TEST_CASE_TEMPLATE("the store stage gives the reference's bits on every path, tile shape and width", T, float,
                   double) {
  int two_threads = 2;
  for (tk::InstructionSet set : supported_instruction_sets())
    for (int bits : all_widths) {
      tk::GemmOptions options;
      options.instruction_set = set;
      options.vector_bits = bits;
      const tk::KernelInfo info = sizeof(T) == 4 ? tk::describe_float_kernel(options) : tk::describe_double_kernel(options);
      CAPTURE(info.instruction_set);
      CAPTURE(bits);
      for (bool packed : {false, true})
        for (int mode = 0; mode < 3; ++mode) {
          options.allow_unpacked_path = !packed;
          StageCase<T> s;
          s.bias = mode != 1;
          s.activation = mode == 2 ? tk::Activation::none : tk::Activation::relu;
          CAPTURE(packed);
          CAPTURE(mode);
          // Full tiles, every remainder of rows and columns, skinny n, a single row.
          for (std::int64_t m : {std::int64_t{1}, std::int64_t{info.mr}, std::int64_t{2 * info.mr + 3}})
            for (std::int64_t n : {std::int64_t{1}, std::int64_t{5}, std::int64_t{info.nr}, std::int64_t{2 * info.nr + 7}}) {
              s.m = m;
              s.n = n;
              s.k = 13;
              CAPTURE(m);
              CAPTURE(n);
              CHECK(stage_matches_reference(s, options));
            }
          // k == 0: the stage applies to the zeros.
          s.m = 9;
          s.n = 11;
          s.k = 0;
          CHECK(stage_matches_reference(s, options));
        }
    }
  tk::GemmOptions options;
  StageCase<T> s;
  SUBCASE("several KC blocks: the stage only after the last") {
    options.allow_unpacked_path = false;
    options.kc = 7;
    options.mc = 5;
    options.nc = 3;
    s.m = 41;
    s.n = 53;
    s.k = 30;
    CHECK(stage_matches_reference(s, options));
  }
  SUBCASE("batches with a bias per batch and a shared one, on two threads") {
    options.parallel_for = parallel_for_with(two_threads);
    options.minimum_parallel_work = 0;
    s.m = 47;
    s.n = 71;
    s.k = 19;
    s.batch = 3;
    for (bool per_batch : {false, true})
      for (bool packed : {false, true}) {
        s.per_batch_bias = per_batch;
        options.allow_unpacked_path = !packed;
        CAPTURE(per_batch);
        CAPTURE(packed);
        CHECK(stage_matches_reference(s, options));
      }
  }
}

}  // namespace
