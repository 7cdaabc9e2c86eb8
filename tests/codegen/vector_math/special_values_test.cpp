// The vector math ops on special values, and their lane independence:
//   - NaN, +-inf and +-0 inputs give glibc's results bit for bit (the interpreter's ScalarOp, which
//     calls libm; any NaN equals any NaN), pow and atan2 over a grid of special pairs likewise
//     (atan2's finite angles, +-pi/2, +-pi, +-pi/4, +-3pi/4, within its bound);
//   - subnormal inputs, the overflow and underflow thresholds and their neighbours, DBL_MAX and
//     friends are within the op's bound of the exact value (inf and 0 where it rounds to them, zeros
//     with the right sign);
//   - every width (VECTOR_BITS 128, 256, 512) and every split of the range between vector body and
//     scalar tail give the same bits, and so do neighbours that send a register to a slow path. Any NaN equals any NaN: the sign of a NaN produced from a NaN
//     operand depends on which operand x86 puts first in a commutative instruction, which LLVM
//     chooses per instruction selection (loop_kernel_testing.hpp says more).
#include <doctest/doctest.h>

#include <cstring>
#include <iterator>
#include <limits>
#include <random>

#include "vector_math_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::OpKernel;
using tensorjit::DType;

namespace {

codegen::JitOptions width_options(int bits) {
  codegen::JitOptions options;
  options.vector_bits = bits;
  return options;
}

template <typename T> T interpreter_value(ir::Op op, T x, T y = 0) {
  const ir::Scalar result = ir::evaluate_scalar(
      op, tensorjit::dtype_of<T>(), tensorjit::dtype_of<T>(),
      ir::info(op).arity == 1 ? std::vector<ir::Scalar>{ir::make_scalar(x)}
                              : std::vector<ir::Scalar>{ir::make_scalar(x), ir::make_scalar(y)});
  return ir::scalar_value<T>(result);
}

template <typename T> bool same_bits_or_both_nan(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T> std::vector<T> special_inputs() {
  using limits = std::numeric_limits<T>;
  return {limits::quiet_NaN(), -limits::quiet_NaN(), limits::infinity(), -limits::infinity(),
          T(0), T(-0.0)};
}

// Values at the edges: subnormals, the normal range's ends, and the thresholds where the ops
// overflow, underflow or saturate, each with its neighbours.
template <typename T> std::vector<T> edge_inputs() {
  using limits = std::numeric_limits<T>;
  std::vector<T> centres = {limits::denorm_min(), limits::min(), limits::max(), T(1), T(0.5),
                            T(2), T(20), T(6), T(28), T(0.84375), T(1.25), T(2.857142857142857),
                            T(0.55), T(0x1p30), T(1e4), T(1e-8), T(0x1p-27),
                            // atan's interval ends and saturation, tan's pole and f32 reduction limit
                            T(0.4375), T(0.6875), T(1.1875), T(2.4375), T(0x1p66),
                            T(1.5707963267948966), T(0x1p20)};
  if constexpr (sizeof(T) == 8) {
    centres.insert(centres.end(), {T(709.782712893384), T(-708.3964185322641),
                                   T(-745.1332191019411), T(-744.44007192138122), T(1024),
                                   T(-1022), T(-1074), T(-1075), T(710), T(-746), T(40), T(-40),
                                   T(19.06), T(0x1p-1022 * 3)});
  } else {
    centres.insert(centres.end(), {T(88.72283935546875), T(-87.33654022216797),
                                   T(-103.97207641601562), T(128), T(-126), T(-149), T(-150),
                                   T(9.01), T(-87.3), T(0x1p-126f * 3), T(2.875), T(5.125),
                                   T(0.125), T(2.625), T(4.875)});
  }
  std::vector<T> values;
  for (T centre : centres) {
    T below = centre, above = centre;
    for (int step = 0; step < 3; ++step) {
      below = std::nextafter(below, T(0));
      above = std::nextafter(above, limits::infinity());
    }
    for (T value : {centre, below, above, std::nextafter(centre, T(0)),
                    std::nextafter(centre, limits::infinity())}) {
      values.push_back(value);
      values.push_back(-value);
    }
  }
  return values;
}

template <typename T> void check_unary_specials(codegen::Jit& jit) {
  using R = codegen::testing::ReferenceType<T>;
  const DType dtype = tensorjit::dtype_of<T>();
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    if (ir::info(op).arity == 2) continue;  // pow and atan2: check_binary_specials
    CAPTURE(ir::op_name(op));
    CAPTURE(tensorjit::dtype_name(dtype));
    OpKernel<T> kernel(jit, op);
    const auto specials = special_inputs<T>();
    std::vector<T> out(specials.size());
    kernel.run(specials.data(), nullptr, out.data(), static_cast<std::int64_t>(specials.size()));
    for (std::size_t i = 0; i < specials.size(); ++i) {
      CAPTURE(specials[i]);
      CHECK(same_bits_or_both_nan(out[i], interpreter_value(op, specials[i])));
    }
    const auto edges = edge_inputs<T>();
    out.resize(edges.size());
    kernel.run(edges.data(), nullptr, out.data(), static_cast<std::int64_t>(edges.size()));
    const double bound = codegen::testing::ulp_bound(op, dtype);
    for (std::size_t i = 0; i < edges.size(); ++i) {
      CAPTURE(edges[i]);
      CAPTURE(out[i]);
      const R exact = codegen::testing::reference<T, R>(op, R(edges[i]));
      CHECK(codegen::testing::ulp_error(out[i], exact) <= bound);
      const T rounded = static_cast<T>(exact);
      if (rounded == 0 && out[i] == 0) CHECK(std::signbit(rounded) == std::signbit(out[i]));
    }
  }
}

// pow(x, y) or atan2(x, y) over the grid of every pair of `values`: a special operand or result
// gives the interpreter's bits, others are within the bound (atan2's finite angles always are).
template <typename T> void check_binary_specials(codegen::Jit& jit, ir::Op op) {
  using limits = std::numeric_limits<T>;
  const std::vector<T> values = {limits::quiet_NaN(), limits::infinity(), -limits::infinity(),
                                 T(0), T(-0.0), T(1), T(-1), T(0.5), T(-0.5), T(2), T(-2), T(3),
                                 T(-3), T(-3.5), T(0.25), limits::denorm_min(), limits::max(),
                                 -limits::max(), limits::min(), T(1e-3), T(1000), T(-1000),
                                 // the largest odd integer of f32 and the even ones beyond it
                                 T(16777215), T(-16777215), T(0x1p24), T(-16777218)};
  std::vector<T> x, y;
  for (T a : values)
    for (T b : values) {
      x.push_back(a);
      y.push_back(b);
    }
  OpKernel<T> kernel(jit, op);
  std::vector<T> out(x.size());
  kernel.run(x.data(), y.data(), out.data(), static_cast<std::int64_t>(x.size()));
  using R = codegen::testing::ReferenceType<T>;
  CAPTURE(ir::op_name(op));
  for (std::size_t i = 0; i < x.size(); ++i) {
    CAPTURE(x[i]);
    CAPTURE(y[i]);
    CAPTURE(out[i]);
    const T expected = interpreter_value(op, x[i], y[i]);
    const bool special_result = !std::isfinite(expected) || expected == 0;
    const bool special = special_result || (op == ir::Op::pow && (!std::isfinite(x[i]) ||
                                            !std::isfinite(y[i]) || x[i] == 0 || y[i] == 0));
    if (special) {
      CHECK(same_bits_or_both_nan(out[i], expected));
    } else {
      const R exact = codegen::testing::reference<T, R>(op, R(x[i]), R(y[i]));
      CHECK(codegen::testing::ulp_error(out[i], exact) <= codegen::testing::ulp_bound(op, tensorjit::dtype_of<T>()));
    }
  }
}

// Random and edge inputs through kernels of every width, split at several points: all equal.
template <typename T> void check_same_bits_everywhere() {
  std::mt19937_64 rng(5);
  std::vector<T> x = edge_inputs<T>(), y;
  for (T value : special_inputs<T>()) x.push_back(value);
  while (x.size() < 1021) x.push_back(static_cast<T>(std::uniform_real_distribution<double>(-40, 40)(rng)));
  for (std::size_t i = 0; i < x.size(); ++i) y.push_back(x[(i * 7) % x.size()]);
  for (ir::Op op : codegen::testing::vector_math_ops()) {
    CAPTURE(ir::op_name(op));
    std::vector<T> first;
    for (int bits : codegen::kVectorBitsChoices) {
      codegen::Jit jit(width_options(bits));
      OpKernel<T> kernel(jit, op);
      for (std::int64_t split : {std::int64_t{-1}, std::int64_t{1}, std::int64_t{37}, std::int64_t{1020}}) {
        CAPTURE(bits);
        CAPTURE(split);
        std::vector<T> out(x.size());
        kernel.run(x.data(), y.data(), out.data(), static_cast<std::int64_t>(x.size()), split);
        if (first.empty()) first = out;
        for (std::size_t i = 0; i < out.size(); ++i) {
          if (!same_bits_or_both_nan(first[i], out[i])) {
            CAPTURE(x[i]);
            CAPTURE(first[i]);
            CAPTURE(out[i]);
            CHECK(same_bits_or_both_nan(first[i], out[i]));
          }
        }
      }
    }
  }
}

// Some ops take a slow path for a whole register, or for the loop's group of interleaved
// registers, when one of its lanes needs it (sin and cos of huge arguments, f32 gelu_tanh below
// its table; a group is entered, then each register that needs it). Every value must get the same
// bits whatever its neighbours: the common-range values beside far ones as among their own kind,
// the far ones as among far ones only, at every width. Far values sit every 5th element (every
// register has one), or every 64th (a group entered for one register, its others calm).
template <typename T> void check_neighbours_do_not_matter() {
  using limits = std::numeric_limits<T>;
  std::mt19937_64 rng(11);
  std::vector<T> calm(1021);
  for (T& value : calm) value = static_cast<T>(std::uniform_real_distribution<double>(-2.5, 2.5)(rng));
  const T far[] = {T(-40), T(-3), T(1e30), T(-1e30), limits::quiet_NaN(), -limits::infinity(), T(60), T(-2.9)};
  for (std::size_t spacing : {std::size_t{5}, std::size_t{64}}) {
    CAPTURE(spacing);
    std::vector<T> mixed = calm, far_only;
    for (std::size_t i = 3; i < mixed.size(); i += spacing) {
      mixed[i] = far[far_only.size() % std::size(far)];
      far_only.push_back(mixed[i]);
    }
    for (ir::Op op : codegen::testing::vector_math_ops()) {
      CAPTURE(ir::op_name(op));
      for (int bits : codegen::kVectorBitsChoices) {
        CAPTURE(bits);
        codegen::Jit jit(width_options(bits));
        OpKernel<T> kernel(jit, op);
        std::vector<T> alone(calm.size()), beside(calm.size()), far_alone(far_only.size());
        const auto count = static_cast<std::int64_t>(calm.size());
        kernel.run(calm.data(), calm.data(), alone.data(), count);
        kernel.run(mixed.data(), calm.data(), beside.data(), count);
        std::vector<T> far_second(far_only.size());  // pow's exponents at the far places
        for (std::size_t j = 0; j < far_only.size(); ++j) far_second[j] = calm[3 + j * spacing];
        kernel.run(far_only.data(), far_second.data(), far_alone.data(),
                   static_cast<std::int64_t>(far_only.size()));
        for (std::size_t i = 0; i < calm.size(); ++i) {
          const bool is_far = i >= 3 && (i - 3) % spacing == 0;
          const T expected = is_far ? far_alone[(i - 3) / spacing] : alone[i];
          if (same_bits_or_both_nan(expected, beside[i])) continue;
          CAPTURE(mixed[i]);
          CHECK(same_bits_or_both_nan(expected, beside[i]));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("vector math: a lane's bits do not depend on the slow paths of its neighbours") {
  check_neighbours_do_not_matter<float>();
  check_neighbours_do_not_matter<double>();
}

TEST_CASE("vector math: NaN, inf and zero inputs give glibc's results, edges are within bounds") {
  codegen::Jit jit;
  check_unary_specials<float>(jit);
  check_unary_specials<double>(jit);
}

TEST_CASE("vector math pow and atan2: special pairs give glibc's results") {
  codegen::Jit jit;
  for (ir::Op op : {ir::Op::pow, ir::Op::atan2}) {
    check_binary_specials<float>(jit, op);
    check_binary_specials<double>(jit, op);
  }
}

TEST_CASE("vector math: the same bits at every width and in the scalar tail") {
  check_same_bits_everywhere<float>();
  check_same_bits_everywhere<double>();
}
