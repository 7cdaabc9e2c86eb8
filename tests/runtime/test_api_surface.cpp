// Every name of the public API surface (tensor.hpp, functions.hpp), used the way a user spells it,
// with a value to check.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

// Within a few units in the last place of f64 (the JIT's transcendental functions are
// polynomials with documented ULP bounds, not libm).
bool close(double actual, double expected) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::fabs(actual - expected) <= 1e-13 * std::max(1.0, std::fabs(expected));
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("every unary function of the API against libm") {
  const std::vector<double> xs = {-2.5, -1.0, -0.25, 0.0, 0.5, 1.0, 3.0};
  auto x = tj::tensor<double>({7}, xs);
  struct Case {
    const char* name;
    std::function<tj::Tensor(const tj::Tensor&)> function;
    std::function<double(double)> reference;
  };
  const double inv_sqrt2 = 0.70710678118654752440, sqrt_2_over_pi = 0.79788456080286535588;
  std::vector<Case> cases = {
      {"exp", [](auto& t) { return tj::exp(t); }, [](double v) { return std::exp(v); }},
      {"log", [](auto& t) { return tj::log(tj::abs(t) + 1.0); }, [](double v) { return std::log(std::fabs(v) + 1); }},
      {"tanh", [](auto& t) { return tj::tanh(t); }, [](double v) { return std::tanh(v); }},
      {"sigmoid", [](auto& t) { return tj::sigmoid(t); }, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"relu", [](auto& t) { return tj::relu(t); }, [](double v) { return v > 0 ? v : 0; }},
      {"gelu", [](auto& t) { return tj::gelu(t); }, [&](double v) { return v * 0.5 * (1 + std::erf(v * inv_sqrt2)); }},
      {"gelu_tanh", [](auto& t) { return tj::gelu_tanh(t); },
       [&](double v) { return 0.5 * v * (1 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * (v * v * v)))); }},
      {"silu", [](auto& t) { return tj::silu(t); }, [](double v) { return v / (1 + std::exp(-v)); }},
      {"erf", [](auto& t) { return tj::erf(t); }, [](double v) { return std::erf(v); }},
      {"sqrt", [](auto& t) { return tj::sqrt(tj::abs(t)); }, [](double v) { return std::sqrt(std::fabs(v)); }},
      {"rsqrt", [](auto& t) { return tj::rsqrt(tj::abs(t) + 1.0); }, [](double v) { return 1 / std::sqrt(std::fabs(v) + 1); }},
      {"abs", [](auto& t) { return tj::abs(t); }, [](double v) { return std::fabs(v); }},
      {"sign", [](auto& t) { return tj::sign(t); }, [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v; }},
      {"square", [](auto& t) { return tj::square(t); }, [](double v) { return v * v; }},
      {"sin", [](auto& t) { return tj::sin(t); }, [](double v) { return std::sin(v); }},
      {"cos", [](auto& t) { return tj::cos(t); }, [](double v) { return std::cos(v); }},
  };
  for (const auto& c : cases) {
    auto values = c.function(x).to_vector<double>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      INFO(c.name << "(" << xs[i] << ") = " << values[i] << ", libm gives " << c.reference(xs[i]));
      CHECK(close(values[i], c.reference(xs[i])));
    }
  }
}

TEST_CASE("the brief's examples, spelled as the brief spells them") {
  tj::Tensor a = tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  tj::Tensor b = tj::tensor({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  CHECK((a == b).all().item<bool>());
  CHECK((a != b).any().item<bool>() == false);
  CHECK((a <= b).all().item<bool>());
  CHECK((a >= b).all().item<bool>());
  CHECK_FALSE((a > b).any().item<bool>());
  CHECK_FALSE((a < b).any().item<bool>());
  CHECK((a + b - a * b / b).to_vector<float>() == b.to_vector<float>());
  CHECK((-a + 2.0f).at<float>({0, 0}) == 1.0f);
  CHECK(tj::zeros({2, 3}).shape() == tj::Shape{2, 3});
  CHECK(tj::ones({2, 3}, tj::f64).dtype() == tj::f64);
  CHECK(tj::full({2, 3}, 1.5f).sum().item<float>() == 9.0f);
  CHECK(tj::arange(0, 6, 1, tj::i64).dtype() == tj::i64);
  CHECK(tj::linspace(0.0, 1.0, 5).size() == 5);
  CHECK(tj::scalar(2.0f).item<float>() == 2.0f);
  CHECK(tj::where(a > 2.0f, a, b * 0.0f).sum().item<float>() == 18.0f);
  CHECK(tj::maximum(a, b).sum().item<float>() == 21.0f);
  CHECK(tj::minimum(a, b).sum().item<float>() == 21.0f);
  CHECK(tj::pow(a, b).at<float>({0, 1}) == 4.0f);
  CHECK(tj::clamp(a, 2.0f, 5.0f).to_vector<float>() == std::vector<float>{2, 2, 3, 4, 5, 5});
  CHECK(a.astype(tj::f64).dtype() == tj::f64);
  CHECK(a.reshape({3, -1}).shape() == tj::Shape{3, 2});
  CHECK(a.permute({1, 0}).shape() == tj::Shape{3, 2});
  CHECK(a.transpose().shape() == tj::Shape{3, 2});
  CHECK(a.expand({4, 2, 3}).shape() == tj::Shape{4, 2, 3});
  CHECK(a.slice(1, 0, 3, 2).shape() == tj::Shape{2, 2});
  CHECK(a.flip(0).at<float>({0, 0}) == 4.0f);
  CHECK(a.unsqueeze(0).squeeze(0).shape() == tj::Shape{2, 3});
  CHECK(a.contiguous().strides() == tj::Shape{3, 1});
  CHECK(a.copy().to_vector<float>() == a.to_vector<float>());
  CHECK(a.sum().item<float>() == 21.0f);
  CHECK(a.sum({0}, /*keepdims=*/true).shape() == tj::Shape{1, 3});
  CHECK(a.mean().item<float>() == 3.5f);
  CHECK(a.max().item<float>() == 6.0f);
  CHECK(a.min().item<float>() == 1.0f);
  CHECK(a.prod().item<float>() == 720.0f);
  CHECK(a.argmax(1).to_vector<std::int64_t>() == std::vector<std::int64_t>{2, 2});
  CHECK(a.argmin(0).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 0, 0});
  CHECK(a.sum(tj::Reduction::fast).item<float>() == 21.0f);
  CHECK(a.sum({1}, false, tj::Reduction::strict).to_vector<float>() == std::vector<float>{6, 15});
  CHECK(tj::matmul(a, b.transpose()).shape() == tj::Shape{2, 2});
  CHECK(tj::softmax(a, 1).sum({1}).to_vector<float>().size() == 2);
  CHECK(tj::log_softmax(a, 1).shape() == tj::Shape{2, 3});
  CHECK(tj::layernorm(a, tj::ones({3}), tj::zeros({3}), 1e-5).shape() == tj::Shape{2, 3});
  CHECK(tj::rmsnorm(a, tj::ones({3}), 1e-6).shape() == tj::Shape{2, 3});
  tj::Tensor c = a * 2.0f;
  c.eval();
  tj::eval({a, b, c});
  CHECK(a.rank() == 2);
  CHECK(a.size() == 6);
  CHECK(a.to_string() == "[[1. 2. 3.]\n [4. 5. 6.]]");
  std::ostringstream out;
  out << a;
  CHECK(out.str() == a.to_string());
  float memory[4] = {1, 2, 3, 4};
  CHECK(tj::from_blob(memory, {2, 2}, {1, 2}, tj::f32, nullptr).at<float>({0, 1}) == 3.0f);
}

}  // TEST_SUITE
