// f16 and bf16 against PyTorch's eager CPU results, stored in data/torch_storage_floats.safetensors
// by data/make_torch_storage_floats.py (so this test needs no PyTorch). docs/contracts.md, "f16 and
// bf16": each op computes in f32 and rounds once.
//   - elementwise ops of one rounding (add, sub, mul, div, sqrt, maximum, relu, neg, abs, a chain
//     of them), max, and the exactly summable sums and product: PyTorch's bits;
//   - exp, tanh, sigmoid: both round an f32 value within about an ulp of f32, so they may round to
//     neighbours: within 1 ulp of the 16-bit type;
//   - sum and mean: the f32 sums are added in different orders: within 1 ulp (2 for the mean, a
//     sum then a division);
//   - matmul: one f32 chain here, a blocked order in PyTorch: within 1 ulp of the 16-bit type plus
//     f32's accumulation bound k·2⁻²⁴·Σ|a||b|;
//   - softmax and layernorm are composites of primitives that each round to the 16-bit type
//     (docs/contracts.md), where PyTorch rounds once: within the bounds stated below.
// Every case reports how many elements differ from PyTorch's and by how many ulps at most.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

const std::map<std::string, tj::Tensor>& stored() {
  static const std::map<std::string, tj::Tensor> tensors =
      tj::load_safetensors(std::string(TENSORJIT_TEST_DATA) + "/torch_storage_floats.safetensors");
  return tensors;
}

// The 16-bit pattern as a position on the number line (negative values below zero), so that the
// difference of two positions counts the representable values between them: ulps.
std::int32_t position(std::uint16_t bits) {
  const std::int32_t magnitude = bits & 0x7FFF;
  return (bits & 0x8000) ? -magnitude : magnitude;
}

std::vector<std::uint16_t> bits_of(const tj::Tensor& t) {
  std::vector<std::uint16_t> out;
  if (t.dtype() == tj::f16)
    for (auto v : t.to_vector<tj::float16_t>()) out.push_back(v.bits);
  else
    for (auto v : t.to_vector<tj::bfloat16_t>()) out.push_back(v.bits);
  return out;
}

struct Difference {
  std::int64_t differing = 0;  // elements whose bits differ
  std::int32_t max_ulps = 0;   // the largest distance, in ulps of the 16-bit type
  std::int64_t beyond = 0;     // elements beyond the allowed distance (see `within`)
};

// `got` against PyTorch's `expected`, same dtype and shape; an element within `allowed(i)` ulps
// passes (NaN against NaN is equal).
template <class Allowed>
Difference compare(const tj::Tensor& got, const tj::Tensor& expected, Allowed allowed) {
  REQUIRE(got.dtype() == expected.dtype());
  REQUIRE(got.shape() == expected.shape());
  const std::vector<std::uint16_t> g = bits_of(got), e = bits_of(expected);
  const std::uint16_t exponent = got.dtype() == tj::f16 ? 0x7C00 : 0x7F80;
  auto is_nan = [&](std::uint16_t b) { return (b & exponent) == exponent && (b & ~(exponent | 0x8000)) != 0; };
  Difference d;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g[i] == e[i] || (is_nan(g[i]) && is_nan(e[i]))) continue;
    ++d.differing;
    const std::int32_t ulps = std::abs(position(g[i]) - position(e[i]));
    d.max_ulps = std::max(d.max_ulps, ulps);
    if (is_nan(g[i]) || is_nan(e[i]) || ulps > allowed(i)) ++d.beyond;
  }
  return d;
}

Difference exactly(const tj::Tensor& got, const tj::Tensor& expected) {
  return compare(got, expected, [](std::size_t) { return 0; });
}

Difference within_ulps(const tj::Tensor& got, const tj::Tensor& expected, int ulps) {
  return compare(got, expected, [=](std::size_t) { return ulps; });
}

void report(const std::string& what, const Difference& d) {
  MESSAGE(what << ": " << d.differing << " elements differ from PyTorch's, at most by " << d.max_ulps << " ulps");
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("f16 and bf16 against PyTorch's stored results: elementwise, reductions, rows and matmul") {
  for (const std::string name : {"f16", "bf16"}) {
    CAPTURE(name);
    auto t = [&](const std::string& key) {
      auto found = stored().find(name + "." + key);
      REQUIRE_MESSAGE(found != stored().end(), "missing " << name << "." << key);
      return found->second;
    };
    const tj::Tensor x = t("x"), y = t("y");
    // One rounding each: PyTorch's bits.
    const std::map<std::string, tj::Tensor> one_rounding = {
        {"add", x + y},
        {"sub", x - y},
        {"mul", x * y},
        {"div", x / (tj::abs(y) + 0.5f)},
        {"sqrt", tj::sqrt(tj::abs(x))},
        {"maximum", tj::maximum(x, y)},
        {"relu", tj::relu(x)},
        {"neg_abs", -tj::abs(x)},
        {"chain", tj::maximum(x * y + x, -y) * 0.5f},
        {"max1", x.max({1})},
        {"esum1", t("ex").sum({1})},
        {"esum0", t("ex").sum({0})},
        {"ematmul", tj::matmul(t("ea"), t("eb"))},
    };
    for (const auto& [key, got] : one_rounding) {
      CAPTURE(key);
      const Difference d = exactly(got, t(key));
      CHECK(d.differing == 0);
    }
    // Neighbours at most.
    const std::map<std::string, std::pair<tj::Tensor, int>> near = {
        {"exp", {tj::exp(x * 0.5f), 1}},
        {"tanh", {tj::tanh(x), 1}},
        {"sigmoid", {tj::sigmoid(x), 1}},
        {"sum1", {x.sum({1}), 1}},
        {"mean0", {x.mean({0}), 2}},
    };
    for (const auto& [key, case_] : near) {
      CAPTURE(key);
      const Difference d = within_ulps(case_.first, t(key), case_.second);
      report(name + " " + key, d);
      CHECK(d.beyond == 0);
    }
    // Products: 1 ulp plus f32's accumulation bound k·2⁻²⁴·Σ|a||b|, in ulps of each element.
    for (const auto& [key, b] : {std::pair<std::string, tj::Tensor>{"matmul", t("b")}, {"matmul_t", t("bt").transpose()}}) {
      CAPTURE(key);
      const tj::Tensor a = t("a");
      const tj::Tensor got = tj::matmul(a, b);
      const std::vector<float> bound =
          tj::matmul(tj::abs(a.astype(tj::f32)), tj::abs(b.astype(tj::f32))).to_vector<float>();
      const std::vector<float> reference = t(key).astype(tj::f32).to_vector<float>();
      const int mantissa = name == "f16" ? 10 : 7;
      const Difference d = compare(got, t(key), [&](std::size_t i) {
        const float slack = 64 * std::ldexp(1.0f, -24) * bound[i];
        const float ulp = std::ldexp(1.0f, std::max(std::ilogb(std::fabs(reference[i])), mantissa == 10 ? -14 : -126) - mantissa);
        return 1 + static_cast<int>(std::ceil(slack / ulp));
      });
      report(name + " " + key, d);
      CHECK(d.beyond == 0);
    }
    // Composites rounding at each primitive. softmax: x - max rounds, which exp turns into a
    // relative error of |x - max| ulps; exp, the sum and the division round once each; PyTorch's
    // result rounds once: within ceil(|x - max|) + 4 ulps.
    const int mantissa = name == "f16" ? 10 : 7;
    const int least_exponent = name == "f16" ? -14 : -126;
    auto ulp_of = [&](float value) {
      return std::ldexp(1.0f, std::max(std::ilogb(std::fabs(value)), least_exponent) - mantissa);
    };
    const std::int64_t rows = x.shape()[0], cols = x.shape()[1];
    {
      const std::vector<float> xs = x.astype(tj::f32).to_vector<float>();
      const std::vector<float> row_max = x.astype(tj::f32).max({1}).to_vector<float>();
      const Difference d = compare(tj::softmax(x, -1), t("softmax"), [&](std::size_t i) {
        return static_cast<int>(std::ceil(std::fabs(xs[i] - row_max[i / cols]))) + 4;
      });
      report(name + " softmax", d);
      CHECK(d.beyond == 0);
    }
    // layernorm: the mean, the centring, the squares, the variance, rsqrt, the two products and the
    // sum each round to the 16-bit type, and the centring cancels, so the error is one of the
    // row's scale, not of each element: within 8 ulps of the row's largest |value|.
    {
      const std::vector<float> reference = t("layernorm").astype(tj::f32).to_vector<float>();
      std::vector<float> row_scale(static_cast<std::size_t>(rows), 0.0f);
      for (std::size_t i = 0; i < reference.size(); ++i)
        row_scale[i / cols] = std::max(row_scale[i / cols], std::fabs(reference[i]));
      const tj::Tensor got = tj::layernorm(x, t("gamma"), t("beta"), 1e-5);
      const Difference d = compare(got, t("layernorm"), [&](std::size_t i) {
        return static_cast<int>(std::ceil(8 * ulp_of(row_scale[i / cols]) / ulp_of(reference[i])));
      });
      report(name + " layernorm", d);
      CHECK(d.beyond == 0);
    }
  }
}

}  // TEST_SUITE
