// Random numbers (random.hpp): each function builds its values from `philox` nodes over an i64
// iota of the element positions, with the key as a constant (which the executable cache passes to
// the kernels as an argument: a new key compiles nothing), then ordinary elementwise ops. So the
// values are computed in whichever kernel reads them, and the interpreter defines their bits.
#include <tensorjit/random.hpp>

#include <tensorjit/functions.hpp>

#include <cmath>
#include <numbers>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/philox.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::node_of;
using detail::wrap;

namespace {

void check_shape(std::string_view op, const Shape& shape) {
  TJ_CHECK(shape.size() <= static_cast<std::size_t>(ir::kMaxRank))
      << op << ": shape " << ir::shape_str(shape) << " has rank " << shape.size() << ", more than the maximum of "
      << ir::kMaxRank;
  ir::checked_numel(shape, op);
}

void check_probability(std::string_view op, double p) {
  TJ_CHECK(p >= 0 && p <= 1) << op << ": the probability p must lie in [0, 1], got " << p;
}

void check_floating(std::string_view op, DType dtype) {
  detail::check_dtype(dtype, op);
  TJ_CHECK(is_floating(dtype)) << op << ": dtype must be f32 or f64, got " << dtype_name(dtype);
}

// `value` of `dtype` at every index of `shape`: a scalar constant expanded, as the API builds x + 2.
ir::NodePtr filled(DType dtype, const Shape& shape, ir::Scalar value) {
  ir::NodePtr scalar = ir::make_constant(dtype, {}, value);
  return shape.empty() ? scalar : ir::make_expand(scalar, shape);
}
ir::NodePtr filled_int(DType dtype, const Shape& shape, std::int64_t value) {
  return filled(dtype, shape, ir::Scalar::of_int(dtype, value));
}
ir::NodePtr filled_real(DType dtype, const Shape& shape, double value) {
  return filled(dtype, shape, ir::Scalar::of(dtype, value));
}

ir::NodePtr binary(ir::Op op, ir::NodePtr a, ir::NodePtr b) { return ir::make_binary(op, std::move(a), std::move(b)); }

// The word at position start + step * i of k's stream for each element i (row-major) of `shape`.
ir::NodePtr words(const Key& k, const Shape& shape, double start, double step) {
  const auto key = static_cast<std::int64_t>((std::uint64_t{k.words[1]} << 32) | k.words[0]);
  ir::NodePtr positions = ir::make_iota(DType::i64, ir::checked_numel(shape, "random"), start, step);
  if (shape.size() != 1) positions = ir::make_reshape(positions, shape);
  return binary(ir::Op::philox, filled_int(DType::i64, shape, key), positions);
}

// Key k's second stream: words 0 and 1 of the block at counter (0, 0, 0, 2), which no draw or split
// of k uses.
Key second_stream(const Key& k) {
  const ir::PhiloxCounter block = ir::philox4x32_10({0, 0, 0, 2}, k.words);
  return Key{{block[0], block[1]}};
}

// [0, 1) of `dtype`: f32 from the top 24 bits of word i, f64 from the top 21 bits of word 2i + 1
// above the 32 of word 2i; each a multiple of 2^-24 or 2^-53, exactly.
ir::NodePtr unit_uniform(const Key& k, const Shape& shape, DType dtype) {
  if (dtype == DType::f32) {
    ir::NodePtr top = binary(ir::Op::bitwise_and, binary(ir::Op::right_shift, words(k, shape, 0, 1), filled_int(DType::i32, shape, 8)),
                             filled_int(DType::i32, shape, 0xFFFFFF));
    return binary(ir::Op::mul, ir::make_cast(top, DType::f32), filled_real(DType::f32, shape, 0x1p-24));
  }
  auto unsigned_word = [&](double start) {
    return binary(ir::Op::bitwise_and, ir::make_cast(words(k, shape, start, 2), DType::i64),
                  filled_int(DType::i64, shape, 0xFFFFFFFF));
  };
  ir::NodePtr high = binary(ir::Op::right_shift, unsigned_word(1), filled_int(DType::i64, shape, 11));
  ir::NodePtr bits = binary(ir::Op::bitwise_or, binary(ir::Op::left_shift, high, filled_int(DType::i64, shape, 32)),
                            unsigned_word(0));
  return binary(ir::Op::mul, ir::make_cast(bits, DType::f64), filled_real(DType::f64, shape, 0x1p-53));
}

// x * scale + shift in x's dtype, leaving out a scale of 1 and a shift of 0.
ir::NodePtr affine(ir::NodePtr x, double scale, double shift) {
  const Shape shape = x->shape();
  const DType dtype = x->dtype();
  if (scale != 1) x = binary(ir::Op::mul, x, filled_real(dtype, shape, scale));
  if (shift != 0) x = binary(ir::Op::add, x, filled_real(dtype, shape, shift));
  return x;
}

}  // namespace

Key key(std::uint64_t seed) {
  return Key{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
}

std::vector<Key> split(const Key& k, std::int64_t n) {
  TJ_CHECK(n >= 0) << "split: the number of keys must be non-negative, got " << n;
  std::vector<Key> keys;
  keys.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto counter = static_cast<std::uint64_t>(i);
    const ir::PhiloxCounter block =
        ir::philox4x32_10({static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0, 1}, k.words);
    keys.push_back(Key{{block[0], block[1]}});
  }
  return keys;
}

Tensor random_bits(const Key& k, const Shape& shape) {
  check_shape("random_bits", shape);
  return wrap(words(k, shape, 0, 1));
}

Tensor uniform(const Key& k, const Shape& shape, double low, double high, DType dtype) {
  check_shape("uniform", shape);
  check_floating("uniform", dtype);
  TJ_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high)
      << "uniform: low " << low << " and high " << high << " must be finite with low <= high";
  return wrap(affine(unit_uniform(k, shape, dtype), high - low, low));
}

Tensor normal(const Key& k, const Shape& shape, double mean, double std, DType dtype) {
  check_shape("normal", shape);
  check_floating("normal", dtype);
  TJ_CHECK(std::isfinite(mean) && std::isfinite(std) && std >= 0)
      << "normal: mean " << mean << " and std " << std << " must be finite with std >= 0";
  // 1 - u1 lies in (0, 1] exactly, so the logarithm is finite.
  ir::NodePtr u1 = binary(ir::Op::sub, filled_real(dtype, shape, 1), unit_uniform(k, shape, dtype));
  ir::NodePtr radius = ir::make_unary(
      ir::Op::sqrt, binary(ir::Op::mul, ir::make_unary(ir::Op::log, u1), filled_real(dtype, shape, -2)));
  ir::NodePtr angle = binary(ir::Op::mul, unit_uniform(second_stream(k), shape, dtype),
                             filled_real(dtype, shape, 2 * std::numbers::pi));
  return wrap(affine(binary(ir::Op::mul, radius, ir::make_unary(ir::Op::cos, angle)), std, mean));
}

Tensor randint(const Key& k, const Shape& shape, std::int64_t low, std::int64_t high, DType dtype) {
  check_shape("randint", shape);
  detail::check_dtype(dtype, "randint");
  TJ_CHECK(is_integer(dtype)) << "randint: dtype must be i32 or i64, got " << dtype_name(dtype);
  std::int64_t range = 0;
  TJ_CHECK(low < high && !__builtin_sub_overflow(high, low, &range) && range <= (std::int64_t{1} << 32))
      << "randint: high - low must be between 1 and 2^32, got low " << low << " and high " << high;
  if (dtype == DType::i32) {
    TJ_CHECK(low >= INT32_MIN && high - 1 <= INT32_MAX)
        << "randint: [" << low << ", " << high << ") does not fit in i32; pass dtype=tj::i64";
  }
  // (w * range) >> 32 < 2^32: the arithmetic shift's sign fill of a product past 2^63 is masked off.
  ir::NodePtr word = binary(ir::Op::bitwise_and, ir::make_cast(words(k, shape, 0, 1), DType::i64),
                            filled_int(DType::i64, shape, 0xFFFFFFFF));
  ir::NodePtr scaled = binary(ir::Op::right_shift, binary(ir::Op::mul, word, filled_int(DType::i64, shape, range)),
                              filled_int(DType::i64, shape, 32));
  ir::NodePtr offset = binary(ir::Op::bitwise_and, scaled, filled_int(DType::i64, shape, 0xFFFFFFFF));
  ir::NodePtr value = binary(ir::Op::add, offset, filled_int(DType::i64, shape, low));
  return wrap(dtype == DType::i64 ? value : ir::make_cast(value, dtype));
}

Tensor bernoulli(const Key& k, double p, const Shape& shape) {
  check_shape("bernoulli", shape);
  check_probability("bernoulli", p);
  return wrap(binary(ir::Op::lt, unit_uniform(k, shape, DType::f32), filled_real(DType::f32, shape, p)));
}

Tensor permutation(const Key& k, std::int64_t n) {
  TJ_CHECK(n >= 0) << "permutation: n must be non-negative, got " << n;
  return argsort(random_bits(k, {n}));
}

Tensor dropout(const Tensor& x, double p, const Key& k) {
  ir::NodePtr node = node_of(x, "dropout");
  check_probability("dropout", p);
  TJ_CHECK(is_floating(node->dtype())) << "dropout: x must be f32 or f64, got " << dtype_name(node->dtype());
  if (p == 0) return x;
  const Shape& shape = node->shape();
  ir::NodePtr keep = binary(ir::Op::ge, unit_uniform(k, shape, DType::f32), filled_real(DType::f32, shape, p));
  ir::NodePtr scaled = binary(ir::Op::mul, node, filled_real(node->dtype(), shape, 1 / (1 - p)));
  return wrap(ir::Node::make(ir::Op::where, {keep, scaled, filled_real(node->dtype(), shape, 0)}));
}

}  // namespace tensorjit
