// f16 and bf16 operand storage (MatrixView::storage): the packing converts the 16-bit values to
// f32 as it copies them, so gemm() on 16-bit operands gives, bit for bit, gemm() on f32 copies of
// them (made here with the interpreter's software conversion, ir/include/tensorjit/dtype.hpp) and
// reference_gemm() on the same 16-bit operands: on both paths, every layout, every vector width and
// instruction set the CPU has, one and two threads, odd shapes and several cache blocks.
#include <doctest/doctest.h>

#include <cmath>

#include "ir/include/tensorjit/dtype.hpp"

#include "gemm_test_support.hpp"

namespace {

using namespace gemm_test;

// A 16-bit operand and its f32 twin: the same layout, each element the exact f32 of its bits.
struct NarrowOperand {
  std::vector<std::uint16_t> bits;
  Operand<float> wide;
  tk::MatrixView<float> view;  // the 16-bit view
};

float widen(tk::Storage storage, std::uint16_t bits) {
  return storage == tk::Storage::f16 ? tensorjit::float_from_f16_bits(bits) : tensorjit::float_from_bf16_bits(bits);
}

// Values in [-2, 2] rounded to the storage type; with `specials`, one in 16 is a subnormal, a
// signed zero, an infinity or a NaN (quiet or signalling) instead.
std::uint16_t random_bits(tk::Storage storage, bool specials, std::mt19937& random) {
  const bool f16 = storage == tk::Storage::f16;
  if (specials && random() % 16 == 0) {
    const std::uint16_t sign = (random() & 1) ? 0x8000 : 0;
    switch (random() % 5) {
      case 0: return sign | static_cast<std::uint16_t>(1 + random() % (f16 ? 0x3FF : 0x7F));  // subnormal
      case 1: return sign;                                                                       // zero
      case 2: return sign | (f16 ? 0x7C00 : 0x7F80);                                             // inf
      case 3: return sign | (f16 ? 0x7E01 : 0x7FC1);                                             // quiet NaN
      default: return sign | (f16 ? 0x7C01 : 0x7F81);                                            // signalling NaN
    }
  }
  const float value = std::uniform_real_distribution<float>(-2.0f, 2.0f)(random);
  return f16 ? tensorjit::f16_bits_from_float(value) : tensorjit::bf16_bits_from_float(value);
}

NarrowOperand make_narrow(std::int64_t rows, std::int64_t cols, std::int64_t batch, Layout layout, int batch_sign,
                          tk::Storage storage, bool specials, std::mt19937& random) {
  NarrowOperand operand;
  operand.wide = make_operand<float>(rows, cols, batch, layout, batch_sign, random);
  operand.bits.resize(operand.wide.storage.size());
  for (std::size_t i = 0; i < operand.bits.size(); ++i) {
    operand.bits[i] = random_bits(storage, specials, random);
    operand.wide.storage[i] = widen(storage, operand.bits[i]);
  }
  const std::ptrdiff_t first = operand.wide.view.data - operand.wide.storage.data();
  operand.view = operand.wide.view;
  operand.view.data = nullptr;
  operand.view.storage = storage;
  operand.view.narrow = operand.bits.data() + first;
  return operand;
}

// Which operands are stored in 16 bits.
enum class Narrowed { a, b, both };

// gemm() on the 16-bit operands against gemm() on their f32 copies and, without specials (the
// reference's std::fma may propagate a NaN's payload differently), against reference_gemm() on the
// 16-bit operands. Returns true when all bits agree.
bool narrow_matches(const Problem& p, tk::Storage storage, Narrowed narrowed, const tk::GemmOptions& options,
                    bool specials, std::uint32_t seed = 7) {
  std::mt19937 random(seed);
  NarrowOperand a = make_narrow(p.m, p.k, p.batch, p.a_layout, p.a_batch_sign, storage, specials, random);
  NarrowOperand b = make_narrow(p.k, p.n, p.batch, p.b_layout, p.b_batch_sign, storage, specials, random);
  const std::int64_t ldc = p.n + p.c_padding;
  const std::int64_t c_batch_stride = std::max<std::int64_t>(p.m * ldc, 1);
  const std::size_t c_size = static_cast<std::size_t>(c_batch_stride * std::max<std::int64_t>(p.batch, 1));
  std::vector<float> wide(c_size, -1.0f), narrow(c_size, -1.0f);

  tk::GemmArgs<float> args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.batch = p.batch;
  args.a = a.wide.view;
  args.b = b.wide.view;
  args.c = {wide.data(), ldc, c_batch_stride};
  tk::gemm(args, options);
  if (narrowed != Narrowed::b) args.a = a.view;
  if (narrowed != Narrowed::a) args.b = b.view;
  args.c.data = narrow.data();
  tk::gemm(args, options);
  // Bits equal, any NaN equal to any NaN (docs/contracts.md: which NaN is not part of the contract;
  // two compiled kernels may order an FMA's multiplicands differently).
  auto agree = [&](const std::vector<float>& x, const std::vector<float>& y) {
    for (std::size_t i = 0; i < c_size; ++i)
      if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0 && !(std::isnan(x[i]) && std::isnan(y[i]))) return false;
    return true;
  };
  bool same = agree(wide, narrow);
  if (!specials) {
    const std::string key = problem_key(p, seed) + (storage == tk::Storage::f16 ? " f16" : " bf16") + " narrowed " +
                            std::to_string(int(narrowed));
    const std::vector<float>& reference = remembered_reference<float>(key, [&] {
      std::vector<float> c(c_size, -1.0f);
      tk::GemmArgs<float> reference_args = args;
      reference_args.c.data = c.data();
      tk::reference_gemm(reference_args);
      return c;
    });
    same = same && std::memcmp(reference.data(), narrow.data(), c_size * sizeof(float)) == 0;
  }
  if (!same)
    MESSAGE((storage == tk::Storage::f16 ? "f16" : "bf16") << " operands " << int(narrowed) << " specials "
                                                             << specials << " unpacked path allowed " << options.allow_unpacked_path << ": "
                                                             << describe(p, options));
  return same;
}

const Problem storage_shapes[] = {
    {1, 1, 1, 1, Layout::row_major, Layout::row_major, 1, 1, 0},
    {7, 5, 3, 1, Layout::row_major, Layout::column_major, 1, 1, 1},
    {17, 33, 19, 1, Layout::column_major, Layout::row_major, 1, 1, 0},
    {67, 45, 130, 1, Layout::strided, Layout::reversed_rows, 1, 1, 3},
    {130, 67, 300, 1, Layout::reversed_both, Layout::strided, 1, 1, 0},
    {29, 70, 41, 3, Layout::row_major, Layout::broadcast_rows, -1, 0, 0},
};

TEST_CASE("f16 and bf16 operands: gemm's bits are those of their f32 copies and of the reference") {
  // Every instruction set at every width on one thread; the best one on two (the tasks' cut).
  for (tk::Storage storage : {tk::Storage::f16, tk::Storage::bf16})
    for (Narrowed narrowed : {Narrowed::a, Narrowed::b, Narrowed::both})
      for (tk::InstructionSet set : supported_instruction_sets())
        for (int bits : all_widths)
          for (int threads : {1, 2})
            for (bool packed : {false, true})
              for (bool small_blocks : {false, true}) {
                if (threads == 2 && set != supported_instruction_sets().back()) continue;
                tk::GemmOptions options;
                options.instruction_set = set;
                options.vector_bits = bits;
                options.parallel_for = parallel_for_with(threads);
                options.minimum_parallel_work = 0;
                options.allow_unpacked_path = !packed;
                if (small_blocks) {  // several MC, KC and NC blocks, the packing's edges at each
                  const tk::KernelInfo kernel = tk::describe_float_kernel(options);
                  options.mc = 3 * kernel.mr;
                  options.kc = 11;
                  options.nc = 2 * kernel.nr;
                }
                for (const Problem& p : storage_shapes) {
                  CHECK(narrow_matches(p, storage, narrowed, options, false));
                  if (narrowed == Narrowed::both) CHECK(narrow_matches(p, storage, narrowed, options, true));
                }
              }
}

TEST_CASE("a product beyond the unpacked path's size converts in the packing at every width and thread count") {
  // A is 600 x 500 f32 when converted: 1.2 MB, over the unpacked path's 1 MiB, so the five loops
  // run with the tables' own blocking (several KC blocks of k, several MC blocks of m).
  const Problem p{600, 260, 500, 1, Layout::row_major, Layout::column_major, 1, 1, 0};
  for (tk::Storage storage : {tk::Storage::f16, tk::Storage::bf16})
    for (int bits : all_widths)
      for (int threads : {1, 2}) {
        tk::GemmOptions options;
        options.vector_bits = bits;
        options.parallel_for = parallel_for_with(threads);
        CHECK(narrow_matches(p, storage, Narrowed::both, options, false));
      }
}

TEST_CASE("every layout of 16-bit A and B gives the bits of the f32 copies") {
  for (tk::Storage storage : {tk::Storage::f16, tk::Storage::bf16})
    for (Layout a_layout : all_layouts)
      for (Layout b_layout : all_layouts)
        for (bool packed : {false, true}) {
          tk::GemmOptions options;
          options.allow_unpacked_path = !packed;
          Problem p{23, 37, 29, 2, a_layout, b_layout, 1, -1, 1};
          CHECK(narrow_matches(p, storage, Narrowed::both, options, true));
          CHECK(narrow_matches(p, storage, Narrowed::both, options, false));
        }
}

TEST_CASE("16-bit storage is refused for double products and needs its narrow pointer") {
  std::vector<double> a(4, 1.0), b(4, 1.0), c(4, 0.0);
  tk::GemmArgs<double> args;
  args.m = args.n = args.k = 2;
  args.a = {a.data(), 2, 1, 0};
  args.b = {b.data(), 2, 1, 0};
  args.c = {c.data(), 2, 0};
  args.a.storage = tk::Storage::bf16;
  CHECK_THROWS_WITH_AS(tk::gemm(args), doctest::Contains("f32 products only"), std::invalid_argument);
  std::vector<float> af(4, 1.0f), bf(4, 1.0f), cf(4, 0.0f);
  tk::GemmArgs<float> fargs;
  fargs.m = fargs.n = fargs.k = 2;
  fargs.a = {af.data(), 2, 1, 0};
  fargs.b = {bf.data(), 2, 1, 0};
  fargs.c = {cf.data(), 2, 0};
  fargs.b.storage = tk::Storage::f16;  // `narrow` left null
  CHECK_THROWS_WITH_AS(tk::gemm(fargs), doctest::Contains("narrow"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(tk::reference_gemm(fargs), doctest::Contains("narrow"), std::invalid_argument);
}

}  // namespace
