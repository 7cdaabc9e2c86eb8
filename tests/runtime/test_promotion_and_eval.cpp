#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

TEST_SUITE("runtime") {

TEST_CASE("tensor-tensor promotion follows PyTorch") {
  auto b = tj::tensor({true, false});
  auto i = tj::tensor({1, 2});
  auto l = tj::tensor({std::int64_t{1}, std::int64_t{2}});
  auto f = tj::tensor({1.f, 2.f});
  auto d = tj::tensor({1.0, 2.0});
  CHECK((b + i).dtype() == tj::i32);
  CHECK((i + l).dtype() == tj::i64);
  CHECK((l + f).dtype() == tj::f32);
  CHECK((f + d).dtype() == tj::f64);
  CHECK((i / i).dtype() == tj::f32);
  CHECK((i / i).to_vector<float>() == std::vector<float>{1, 1});
  CHECK((i < f).dtype() == tj::boolean);
  CHECK_THROWS_AS(b + b, tj::Error);
}

TEST_CASE("C++ scalars are weakly typed") {
  auto f = tj::tensor({1.f, 2.f});
  auto d = tj::tensor({1.0});
  auto i = tj::tensor({3, 4});
  auto b = tj::tensor({true});
  CHECK((f * 2.0).dtype() == tj::f32);
  CHECK((d * 2.0f).dtype() == tj::f64);
  CHECK((i + 1).dtype() == tj::i32);
  CHECK((i + std::int64_t{1}).dtype() == tj::i32);
  CHECK((i * 0.5).dtype() == tj::f32);
  CHECK((i * 0.5).to_vector<float>() == std::vector<float>{1.5f, 2});
  CHECK((b + 1).dtype() == tj::i64);
  CHECK((2.0f - f).to_vector<float>() == std::vector<float>{1, 0});
  CHECK((10 / i).dtype() == tj::f32);
  CHECK((f == 2).to_vector<bool>() == std::vector<bool>{false, true});
}

// PyTorch's result_type (issue 27, finding 5): operands with axes decide; a 0-d tensor
// (tj::scalar, a reduction over every axis) only by a higher category (bool < integer < floating),
// or when every operand is 0-d. Expected dtypes and values are torch's for the same operands.
TEST_CASE("0-d tensors take part in promotion by their category only, as in PyTorch") {
  auto i = tj::tensor({1, 2, 3});
  auto f = tj::tensor({0.1f, 2.f, 3.f});
  auto b = tj::tensor({true, false, true});
  auto i0 = tj::scalar<std::int32_t>(2);
  auto l0 = tj::scalar<std::int64_t>(5);
  auto f0 = tj::scalar(0.5f);
  auto d0 = tj::scalar(0.1);
  auto b0 = tj::scalar(true);
  // The three cases.
  CHECK((i + l0).dtype() == tj::i32);
  CHECK((i + l0).to_vector<std::int32_t>() == std::vector<std::int32_t>{6, 7, 8});
  CHECK((f + d0).dtype() == tj::f32);
  CHECK((f + d0).to_vector<float>() == std::vector<float>{0.1f + 0.1f, 2.f + 0.1f, 3.f + 0.1f});
  CHECK(i.sum().dtype() == tj::i64);
  CHECK((i + i.sum()).dtype() == tj::i32);
  CHECK((i + i.sum()).to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 8, 9});
  // The 0-d value is converted to the result's dtype: i64 wraps to i32, 0.1 rounds to f32.
  CHECK((i + tj::scalar<std::int64_t>((std::int64_t{1} << 32) + 1)).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 3, 4});
  CHECK((f == d0).to_vector<bool>() == std::vector<bool>{true, false, false});
  // A higher category takes the 0-d operand's own dtype.
  CHECK((i + d0).dtype() == tj::f64);
  CHECK((i + f0).dtype() == tj::f32);
  CHECK((b + l0).dtype() == tj::i64);
  CHECK((b + i0).dtype() == tj::i32);
  CHECK((b & b0).dtype() == tj::boolean);
  // Every operand 0-d: ordinary promotion.
  CHECK((i0 + l0).dtype() == tj::i64);
  CHECK((i0 + d0).dtype() == tj::f64);
  CHECK((f0 + d0).dtype() == tj::f64);
  CHECK((f0 < d0).item<bool>() == false);
  // Every binary op, comparisons, where, maximum, minimum, pow and clamp follow the same rule.
  for (const tj::Tensor& result :
       {i - l0, i * l0, tj::floor_divide(i, l0), tj::remainder(i, l0), tj::maximum(i, l0), tj::minimum(i, l0),
        tj::pow(i, l0), i << l0, i >> l0, i & l0, i | l0, i ^ l0, tj::where(b, i, l0), tj::where(b, l0, i),
        tj::clamp(i, i0, l0)}) {
    CHECK(result.dtype() == tj::i32);
  }
  CHECK((i / l0).dtype() == tj::f32);
  CHECK((i / l0).to_vector<float>() == std::vector<float>{0.2f, 0.4f, 0.6f});
  for (const tj::Tensor& result : {i < l0, i <= l0, i > l0, i >= l0, i == l0, i != l0}) {
    CHECK(result.dtype() == tj::boolean);
  }
  CHECK((i < tj::scalar<std::int64_t>((std::int64_t{1} << 32) + 2)).to_vector<bool>() ==
        std::vector<bool>{true, false, false});
  CHECK(tj::where(b, f, d0).dtype() == tj::f32);
  CHECK(tj::where(b, i, d0).dtype() == tj::f64);
  CHECK(tj::pow(f, d0).dtype() == tj::f32);
  CHECK(tj::maximum(f, d0).dtype() == tj::f32);
  // clamp takes one dtype for its three operands: maximum then minimum pairwise would give f32.
  CHECK(tj::clamp(i, f0, tj::scalar(2.5)).dtype() == tj::f64);
  CHECK(tj::clamp(i, f0, tj::scalar(2.5)).to_vector<double>() == std::vector<double>{1, 2, 2.5});
}

TEST_CASE("integer edge cases are defined") {
  constexpr auto min32 = std::numeric_limits<std::int32_t>::min();
  auto a = tj::tensor({7, -7, min32, 5});
  auto z = tj::tensor({0, 0, -1, 2});
  CHECK(tj::floor_divide(a, z).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, min32, 2});
  CHECK(tj::remainder(tj::tensor({7, -7, 7}), tj::tensor({3, 3, 0})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, 2, 0});
  CHECK((tj::tensor({1, 1, -8}) << tj::tensor({3, 40, 1})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{8, 0, -16});
  CHECK((tj::tensor({-8, -8, 8}) >> tj::tensor({1, 99, 99})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{-4, -1, 0});
  CHECK(tj::tensor({1e30f, -1e30f, NAN, 2.9f}).astype(tj::i32).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max(), min32, 0, 2});
  CHECK((tj::tensor({std::numeric_limits<std::int32_t>::max()}) + 1).item<std::int32_t>() == min32);
  CHECK((~tj::tensor({0, 5})).to_vector<std::int32_t>() == std::vector<std::int32_t>{-1, -6});
  CHECK_THROWS_AS(tj::floor_divide(tj::tensor({1.f}), tj::tensor({1.f})), tj::Error);
}

TEST_CASE("broadcasting follows numpy") {
  auto a = tj::arange(0, 6, 1).reshape({2, 3});
  auto col = tj::tensor({10.f, 20.f}).reshape({2, 1});
  auto row = tj::tensor({1.f, 2.f, 3.f});
  CHECK((a + row).to_vector<float>() == std::vector<float>{1, 3, 5, 4, 6, 8});
  CHECK((a + col).to_vector<float>() == std::vector<float>{10, 11, 12, 23, 24, 25});
  CHECK((row + col).shape() == tj::Shape{2, 3});
  CHECK((a + tj::scalar(1.0f)).shape() == tj::Shape{2, 3});
  CHECK((tj::zeros({0, 3}) + row).shape() == tj::Shape{0, 3});
  CHECK_THROWS_AS(a + tj::tensor({1.f, 2.f}), tj::Error);
}

TEST_CASE("where, maximum, minimum, clamp, pow and the unary functions") {
  auto x = tj::tensor({-2.f, -0.5f, 0.f, 3.f, NAN});
  auto r = tj::relu(x).to_vector<float>();
  CHECK(r[0] == 0);
  CHECK(r[3] == 3);
  CHECK(std::isnan(r[4]));
  auto m = tj::maximum(x, 0.f).to_vector<float>();
  CHECK(std::isnan(m[4]));
  CHECK(tj::clamp(tj::tensor({-5.f, 0.5f, 5.f}), -1.f, 1.f).to_vector<float>() ==
        std::vector<float>{-1, 0.5f, 1});
  CHECK(tj::where(tj::tensor({true, false}), tj::tensor({1.f, 2.f}), 0.f).to_vector<float>() ==
        std::vector<float>{1, 0});
  CHECK(tj::pow(tj::tensor({2.f, 3.f}), 2.f).to_vector<float>() == std::vector<float>{4, 9});
  CHECK(tj::exp(tj::tensor({0, 1})).dtype() == tj::f32);
  CHECK(tj::exp(tj::tensor({0.f})).item<float>() == 1.f);
  CHECK(tj::sqrt(tj::tensor({4.0})).item<double>() == 2.0);
  CHECK(tj::sigmoid(tj::tensor({0.f})).item<float>() == 0.5f);
  CHECK(tj::abs(tj::tensor({-3})).item<std::int32_t>() == 3);
  CHECK(tj::sign(tj::tensor({-3.f, 0.f, 2.f})).to_vector<float>() == std::vector<float>{-1, 0, 1});
  CHECK(tj::square(tj::tensor({-3})).item<std::int32_t>() == 9);
  CHECK(std::fabs(tj::gelu(tj::tensor({1.0})).item<double>() - 0.8413447460685429) < 1e-15);
  CHECK(std::fabs(tj::silu(tj::tensor({1.0})).item<double>() - 0.7310585786300049) < 1e-15);
  CHECK_THROWS_AS(tj::relu(tj::tensor({true})), tj::Error);
}

TEST_CASE("reductions") {
  auto a = tj::arange(1, 7, 1).reshape({2, 3});
  CHECK(a.sum().item<float>() == 21);
  CHECK(a.sum({0}).to_vector<float>() == std::vector<float>{5, 7, 9});
  CHECK(a.sum({-1}, true).shape() == tj::Shape{2, 1});
  CHECK(a.mean({1}).to_vector<float>() == std::vector<float>{2, 5});
  CHECK(a.prod().item<float>() == 720);
  CHECK(a.max().item<float>() == 6);
  CHECK(a.min({1}).to_vector<float>() == std::vector<float>{1, 4});
  CHECK(a.argmax().item<std::int64_t>() == 5);
  CHECK(a.argmin(1).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 0});
  CHECK(tj::tensor({1, 2}).sum().dtype() == tj::i64);
  CHECK(tj::tensor({true, true}).sum().item<std::int64_t>() == 2);
  CHECK(tj::tensor({0, 2}).any().item<bool>());
  CHECK_FALSE(tj::tensor({0, 2}).all().item<bool>());
  CHECK(tj::zeros({0}).sum().item<float>() == 0);
  CHECK(tj::zeros({0}).prod().item<float>() == 1);
  CHECK_FALSE(tj::zeros({0}).any().item<bool>());
  CHECK(tj::zeros({0}).all().item<bool>());
  CHECK_THROWS_AS(tj::zeros({0}).max(), tj::Error);
  CHECK_THROWS_AS(a.sum({0, 0}), tj::Error);
  CHECK_THROWS_AS(a.sum({2}), tj::Error);
  CHECK(std::isnan(tj::tensor({1.f, NAN, 3.f}).max().item<float>()));
  CHECK(tj::tensor({1.f, NAN, 3.f}).argmax().item<std::int64_t>() == 1);
}

TEST_CASE("matmul follows numpy, batches broadcast") {
  auto a = tj::arange(0, 6, 1).reshape({2, 3});
  auto b = tj::arange(0, 6, 1).reshape({3, 2});
  CHECK(tj::matmul(a, b).to_vector<float>() == std::vector<float>{10, 13, 28, 40});
  CHECK(tj::matmul(a, tj::tensor({1.f, 1.f, 1.f})).to_vector<float>() == std::vector<float>{3, 12});
  CHECK(tj::matmul(tj::tensor({1.f, 1.f}), a).to_vector<float>() == std::vector<float>{3, 5, 7});
  auto batched = tj::arange(0, 12, 1).reshape({2, 2, 3});
  auto product = tj::matmul(batched, b);
  CHECK(product.shape() == tj::Shape{2, 2, 2});
  CHECK(product.to_vector<float>() == std::vector<float>{10, 13, 28, 40, 46, 67, 64, 94});
  CHECK(tj::matmul(tj::ones({4, 1, 2, 3}), tj::ones({5, 3, 2})).shape() == tj::Shape{4, 5, 2, 2});
  CHECK(tj::matmul(tj::tensor({1, 2}), tj::tensor({3, 4})).item<std::int32_t>() == 11);
  CHECK(tj::matmul(tj::zeros({2, 0}), tj::zeros({0, 3})).to_vector<float>() == std::vector<float>(6, 0));
  CHECK_THROWS_AS(tj::matmul(a, a), tj::Error);
}

TEST_CASE("softmax, log_softmax, layernorm, rmsnorm") {
  auto x = tj::tensor({{1.0, 2.0, 3.0}, {1000.0, 1000.0, 1000.0}});
  auto s = tj::softmax(x, -1).to_vector<double>();
  CHECK(std::fabs(s[0] - 0.09003057317038046) < 1e-15);
  CHECK(std::fabs(s[4] - 1.0 / 3) < 1e-15);
  auto ls = tj::log_softmax(x, 1).to_vector<double>();
  CHECK(std::fabs(ls[2] - std::log(0.6652409557748219)) < 1e-14);
  auto ln = tj::layernorm(x, tj::ones({3}, tj::f64), tj::zeros({3}, tj::f64), 0.0).to_vector<double>();
  CHECK(std::fabs(ln[0] + std::sqrt(1.5)) < 1e-12);
  CHECK(std::isnan(ln[4]));  // a constant row with eps 0: 0 * rsqrt(0), as PyTorch gives
  auto lne = tj::layernorm(x, tj::ones({3}, tj::f64), tj::zeros({3}, tj::f64), 1e-5).to_vector<double>();
  CHECK(lne[4] == 0.0);
  auto big = tj::tensor({{1e6 - 27.0, 1e6, 1e6 + 27.0}});
  auto lb = tj::layernorm(big, tj::ones({3}, tj::f64), tj::zeros({3}, tj::f64), 0.0).to_vector<double>();
  CHECK(std::fabs(lb[2] - std::sqrt(1.5)) < 1e-12);
  auto rms = tj::rmsnorm(tj::tensor({{3.0, 4.0}}), tj::ones({2}, tj::f64), 0.0).to_vector<double>();
  CHECK(std::fabs(rms[0] - 3.0 / std::sqrt(12.5)) < 1e-15);
  CHECK_THROWS_AS(tj::layernorm(x, tj::ones({2}), tj::zeros({3}), 1e-5), tj::Error);
}

TEST_CASE("eval of several outputs, reuse of evaluated values") {
  auto a = tj::tensor({1.f, 2.f});
  auto shared = a * 3.0f;
  auto p = shared + 1.0f;
  auto q = shared - 1.0f;
  tj::eval({p, q});
  CHECK(p.to_vector<float>() == std::vector<float>{4, 7});
  CHECK(q.to_vector<float>() == std::vector<float>{2, 5});
  shared.eval();
  auto later = shared * 2.0f;
  CHECK(tj::graph_text({later}).find("mul") != std::string::npos);
  CHECK(tj::graph_text({later}).find("input f32[2]") != std::string::npos);
  CHECK(later.to_vector<float>() == std::vector<float>{6, 12});
  const void* first = shared.data();
  shared.eval();
  CHECK(shared.data() == first);
  tj::Tensor empty;
  CHECK_THROWS_AS(empty.eval(), tj::Error);
  CHECK_THROWS_AS(empty.shape(), tj::Error);
}

// The rows of docs/numpy_differences.md that no other test pins: what tensorjit gives where NumPy
// or PyTorch gives something else.
TEST_CASE("the documented differences from NumPy and PyTorch") {
  // Integer mean: f32 (NumPy f64, PyTorch an error).
  CHECK(tj::tensor({1, 2}).mean().dtype() == tj::f32);
  CHECK(tj::tensor({1, 2}).mean().item<float>() == 1.5f);
  // A zero float remainder takes the divisor's sign (NumPy's); PyTorch keeps fmod's -0.0.
  CHECK(!std::signbit(tj::remainder(tj::tensor({-3.0}), tj::tensor({3.0})).item<double>()));
  // softmax over an empty axis: the empty result, as PyTorch (max alone has no identity there).
  CHECK(tj::softmax(tj::zeros({3, 0}), -1).shape() == tj::Shape{3, 0});
  CHECK_THROWS_AS(tj::zeros({3, 0}).max({1}), tj::Error);
  // The composites at -inf follow their formula (-inf * 0), in the JIT as in the interpreter.
  CHECK(std::isnan(tj::gelu(tj::tensor({-INFINITY, 1.f})).to_vector<float>()[0]));
  CHECK(std::isnan(tj::silu(tj::tensor({-INFINITY})).item<float>()));
  // softplus is x above 20 (PyTorch's threshold), not x + exp(-x).
  CHECK(tj::softplus(tj::tensor({20.5, 1.0})).to_vector<double>()[0] == 20.5);
  // logical_and and logical_or convert each operand to bool (NumPy's); PyTorch casts both to the
  // common dtype first, where an f64 1e-300 is an f32 0 (the oracle found it).
  CHECK(tj::logical_and(tj::ones({4, 16}), tj::scalar(1e-300)).all().item<bool>());
  CHECK(tj::logical_or(tj::zeros({3}), tj::scalar(1e-300)).all().item<bool>());
}

}  // TEST_SUITE
