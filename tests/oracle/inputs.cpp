#include "inputs.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace oracle {
namespace {

const char* kFloatValues[] = {"normal", "wide", "specials", "ties"};
const char* kIntegerValues[] = {"small", "full"};
const char* kLayouts[] = {"contiguous", "transposed", "negative", "gapped", "sliced", "broadcast"};

template <typename T> T special_float(Rng& rng) {
  using L = std::numeric_limits<T>;
  const T values[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(),
                      -L::denorm_min() * 7, L::min(), L::max(), -L::max(), T(1), T(-1), T(88.7), T(-88.7),
                      T(-103.5), T(710), T(-745.5), T(-7.25), T(20.5), T(1e30)};
  return values[std::uniform_int_distribution<std::size_t>(0, std::size(values) - 1)(rng)];
}

// `range`: the binary exponents of values=wide, within the dtype's normal range.
template <typename T> std::vector<T> float_values(Rng& rng, const std::string& kind, std::int64_t n, int range,
                                                  T (*special)(Rng&)) {
  std::vector<T> values(static_cast<std::size_t>(n));
  const double drawn_scale = std::vector<double>{1, 30, 1e-3}[std::uniform_int_distribution<std::size_t>(0, 2)(rng)];
  const double scale = kind == "unit" ? 1 : drawn_scale;  // unit: normal(0, 1), the gradient programs
  std::normal_distribution<double> normal(0, scale);
  std::uniform_int_distribution<int> exponent(-range, range);
  std::uniform_int_distribution<int> tie(-3, 3);
  for (T& v : values) {
    if (kind == "wide") v = static_cast<T>((normal(rng) < 0 ? -1.0 : 1.0) * std::ldexp(1.0 + std::abs(normal(rng)) / (scale * 8), exponent(rng)));
    else if (kind == "ties") v = static_cast<T>(tie(rng));
    else if (kind == "specials" && std::bernoulli_distribution(0.1)(rng)) v = special(rng);
    else v = static_cast<T>(normal(rng));
  }
  return values;
}

// f16 and bf16: the extremes of the 16-bit types (65504, the least subnormals 2^-24 and 2^-133,
// the least normal 2^-14) with the f32 specials, each rounded as every conversion is, through f32.
float storage_special(Rng& rng) {
  const float values[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, 0x1p-24f, -7 * 0x1p-24f, 0x1p-14f, 65504.f, -65504.f,
                          0x1p-133f, 3.3895e38f, 1.f, -1.f, 11.09f, -17.3f, 9.75f, -7.25f, 20.5f, 1e30f};
  return values[std::uniform_int_distribution<std::size_t>(0, std::size(values) - 1)(rng)];
}
template <typename T> std::vector<T> storage_values(Rng& rng, const std::string& kind, std::int64_t n, int range) {
  std::vector<T> values(static_cast<std::size_t>(n));
  const std::vector<float> wide = float_values<float>(rng, kind, n, range, storage_special);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = T(wide[i]);
  return values;
}

// values=index: uniform in [-bound, bound), the valid indices of an axis of `bound` elements;
// values=index_out: the same with one element outside that range (the driver checks the error).
template <typename T> std::vector<T> index_values(Rng& rng, const Statement& s, std::int64_t n) {
  const std::int64_t bound = std::stoll(s.attr("bound"));
  std::vector<T> values(static_cast<std::size_t>(n));
  for (T& v : values) v = static_cast<T>(std::uniform_int_distribution<std::int64_t>(-bound, bound - 1)(rng));
  if (s.attr("values") == "index_out" && n > 0) {
    const std::int64_t outside[] = {bound, -bound - 1, bound + 7, std::numeric_limits<T>::max(), std::numeric_limits<T>::min()};
    values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)] =
        static_cast<T>(outside[std::uniform_int_distribution<std::size_t>(0, std::size(outside) - 1)(rng)]);
  }
  return values;
}

template <typename T> std::vector<T> integer_values(Rng& rng, const std::string& kind, std::int64_t n) {
  using L = std::numeric_limits<T>;
  std::vector<T> values(static_cast<std::size_t>(n));
  const T extremes[] = {L::min(), L::max(), T(0), T(-1), T(1), T(31), T(32), T(63), T(64), T(-32)};
  for (T& v : values) {
    if (kind == "small") v = static_cast<T>(std::uniform_int_distribution<int>(-10, 10)(rng));
    else if (std::bernoulli_distribution(0.15)(rng)) v = extremes[std::uniform_int_distribution<std::size_t>(0, 9)(rng)];
    else v = std::uniform_int_distribution<T>(L::min(), L::max())(rng);
  }
  return values;
}

// The values of `shape` in row-major order as bytes of `dtype`, as the statement's `values` says.
std::vector<std::byte> draw_values(Rng& rng, tj::DType dtype, const Statement& s, std::int64_t n) {
  auto bytes_of = [](const auto& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(values[0]));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  };
  const std::string& kind = s.attr("values");
  const bool index = kind == "index" || kind == "index_out";
  switch (dtype) {
    case tj::DType::f32: return bytes_of(float_values<float>(rng, kind, n, 60, special_float<float>));
    case tj::DType::f64: return bytes_of(float_values<double>(rng, kind, n, 300, special_float<double>));
    case tj::DType::f16: return bytes_of(storage_values<tj::float16_t>(rng, kind, n, 16));
    case tj::DType::bf16: return bytes_of(storage_values<tj::bfloat16_t>(rng, kind, n, 60));
    case tj::DType::i32: return bytes_of(index ? index_values<std::int32_t>(rng, s, n) : integer_values<std::int32_t>(rng, kind, n));
    case tj::DType::i64: return bytes_of(index ? index_values<std::int64_t>(rng, s, n) : integer_values<std::int64_t>(rng, kind, n));
    case tj::DType::boolean: {
      std::vector<std::byte> bytes(static_cast<std::size_t>(n));
      for (std::byte& b : bytes) b = static_cast<std::byte>(std::bernoulli_distribution(0.5)(rng));
      return bytes;
    }
  }
  return {};
}

std::int64_t numel(const tj::Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

// `values` (row-major) copied into memory at `strides` from element `base`, wrapped by from_blob.
tj::Tensor strided_blob(const std::vector<std::byte>& values, const tj::Shape& shape,
                        const std::vector<std::int64_t>& strides, std::int64_t base, std::int64_t span, tj::DType dtype) {
  const std::size_t item = tj::itemsize(dtype);
  if (numel(shape) == 0) return tj::from_blob(nullptr, shape, strides, dtype);  // null data is allowed when empty
  auto memory = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(span) * item, std::byte{0x7f});
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < numel(shape); ++i) {
    std::int64_t at = base;
    for (std::size_t a = 0; a < shape.size(); ++a) at += index[a] * strides[a];
    std::memcpy(memory->data() + static_cast<std::size_t>(at) * item, values.data() + static_cast<std::size_t>(i) * item, item);
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
  return tj::from_blob(memory->data() + static_cast<std::size_t>(base) * item, shape, strides, dtype, [memory] {});
}

tj::Tensor contiguous_tensor(const std::vector<std::byte>& values, const tj::Shape& shape, tj::DType dtype) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t a = shape.size(); a-- > 1;) strides[a - 1] = strides[a] * shape[a];
  return strided_blob(values, shape, strides, 0, numel(shape), dtype).copy();
}

}  // namespace

Attrs draw_input_attrs(Rng& rng, tj::DType dtype, const tj::Shape& shape) {
  auto pick = [&](const auto& names) {
    return std::string(names[std::uniform_int_distribution<std::size_t>(0, std::size(names) - 1)(rng)]);
  };
  const std::string values = tj::is_floating(dtype) ? pick(kFloatValues) : tj::is_integer(dtype) ? pick(kIntegerValues) : "bits";
  return {{"dtype", dtype_text(dtype)}, {"shape", list_text(shape)}, {"layout", pick(kLayouts)},
          {"values", values}, {"seed", std::to_string(rng() % 1000000)}};
}

tj::Tensor make_input(const Statement& s) {
  const tj::DType dtype = parse_dtype(s.attr("dtype"));
  const tj::Shape shape = parse_list(s.attr("shape"));
  const std::string& layout = s.attr("layout");
  Rng rng(std::stoull(s.attr("seed")));
  const std::size_t rank = shape.size();
  const std::int64_t n = numel(shape);

  if (layout == "sliced" && rank > 0) {  // every other row of a tensor twice as tall
    tj::Shape tall = shape;
    tall[0] *= 2;
    return contiguous_tensor(draw_values(rng, dtype, s, numel(tall)), tall, dtype).slice(0, 0, std::nullopt, 2);
  }
  if (layout == "broadcast" && rank > 0) {  // the first axis of extent > 1 read with stride 0
    tj::Shape source = shape;
    for (std::int64_t& e : source)
      if (e > 1) { e = 1; break; }
    return contiguous_tensor(draw_values(rng, dtype, s, numel(source)), source, dtype).expand(shape);
  }
  const std::vector<std::byte> values = draw_values(rng, dtype, s, n);
  std::vector<std::int64_t> strides(rank, 1);
  std::int64_t base = 0, span = n;
  if (layout == "transposed") {
    for (std::size_t a = 1; a < rank; ++a) strides[a] = strides[a - 1] * shape[a - 1];
  } else if (layout == "gapped" && rank > 0) {
    strides[rank - 1] = 2 + static_cast<std::int64_t>(rng() % 2);
    for (std::size_t a = rank - 1; a-- > 0;) strides[a] = strides[a + 1] * shape[a + 1] + 1;
    span = strides[0] * shape[0] + 1;
  } else {
    for (std::size_t a = rank; a-- > 1;) strides[a - 1] = strides[a] * shape[a];
    if (layout == "negative" && rank > 0 && shape[0] > 0) {
      base = (shape[0] - 1) * strides[0];
      strides[0] = -strides[0];
    }
  }
  if (layout == "contiguous") return strided_blob(values, shape, strides, base, span, dtype).copy();
  return strided_blob(values, shape, strides, base, span, dtype);
}

}  // namespace oracle
