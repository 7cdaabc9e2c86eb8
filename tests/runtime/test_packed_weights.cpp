// Weights loaded from a file are constant buffers, so the matmul packs their B panels once and
// keeps them while the buffer lives (runtime/src/packed_weights.hpp, docs/gemm.md): the products
// give the bits of the same product over a copy of the weight that is not constant (packed by each
// call), the panels are made once, released by empty_cache() and when the weight is gone.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "runtime/src/packed_weights.hpp"

namespace tj = tensorjit;
using namespace file_test;

namespace {

std::vector<float> random_values(std::size_t count, std::mt19937& random) {
  std::vector<float> values(count);
  for (float& x : values) x = std::uniform_real_distribution<float>(-1, 1)(random);
  return values;
}

bool same_bits(const tj::Tensor& a, const tj::Tensor& b) {
  const auto x = a.to_vector<float>();
  const auto y = b.to_vector<float>();
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a weight loaded from a file is packed once and gives the bits of an unpacked copy") {
  tj::empty_cache();
  std::mt19937 random(5);
  TempFolder folder;
  const std::string path = folder / "layer.safetensors";
  // W as a dense layer stores it, [out, in]; x·Wᵀ reads it as a column-major B.
  const std::int64_t out = 300, in = 70;
  const std::vector<float> w_values = random_values(static_cast<std::size_t>(out * in), random);
  const std::vector<float> bias_values = random_values(static_cast<std::size_t>(out), random);
  tj::save_safetensors(path, {{"weight", tj::tensor<float>({out, in}, w_values)},
                              {"bias", tj::tensor<float>({out}, bias_values)},
                              {"half", tj::tensor<float>({out, in}, w_values).astype(tj::f16)}});
  std::vector<float> w_copy = w_values;
  const tj::Tensor unpacked_w = tj::from_blob(w_copy.data(), {out, in}, {}, tj::f32, {});
  const tj::Tensor bias = tj::tensor<float>({out}, bias_values);
  const tj::Tensor x = tj::tensor<float>({16, in}, random_values(16 * in, random));
  const tj::Tensor x3 = tj::tensor<float>({2, 5, in}, random_values(10 * in, random));

  const tj::Tensor expected = tj::matmul(x, unpacked_w.transpose()) + bias;
  const tj::Tensor expected3 = tj::matmul(x3, unpacked_w.transpose());
  expected.eval();
  expected3.eval();
  CHECK(tensorjit::detail::packed_weights_bytes() == 0);  // a from_blob weight is not constant

  std::size_t packed = 0;
  {
    const auto loaded = tj::load_safetensors(path);
    const tj::Tensor w = loaded.at("weight");
    CHECK(same_bits(tj::matmul(x, w.transpose()) + bias, expected));
    packed = tensorjit::detail::packed_weights_bytes();
    CHECK(packed >= static_cast<std::size_t>(out * in) * sizeof(float));
    // Again, and over a batch of rows: the panels are read, not made again.
    CHECK(same_bits(tj::matmul(x, w.transpose()) + bias, expected));
    CHECK(same_bits(tj::matmul(x3, w.transpose()), expected3));
    CHECK(tensorjit::detail::packed_weights_bytes() == packed);
    // f16 weights: the panels hold their exact f32 values.
    const tj::Tensor half = loaded.at("half");
    CHECK(same_bits(tj::matmul(x, half.transpose()),
                    tj::matmul(x, tj::from_blob(w_copy.data(), {out, in}, {}, tj::f32, {}).astype(tj::f16)
                                      .astype(tj::f32).transpose())));
    tj::empty_cache();
    CHECK(tensorjit::detail::packed_weights_bytes() == 0);
    CHECK(same_bits(tj::matmul(x, w.transpose()) + bias, expected));
    CHECK(tensorjit::detail::packed_weights_bytes() == packed);
  }
  // The weights are gone: the next packing sweeps their panels.
  const auto reloaded = tj::load_safetensors(path);
  CHECK(same_bits(tj::matmul(x, reloaded.at("weight").transpose()) + bias, expected));
  CHECK(tensorjit::detail::packed_weights_bytes() == packed);
  tj::empty_cache();
}
