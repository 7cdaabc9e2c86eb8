// The tensors every saver must round-trip exactly: each dtype at 0-d, empty ([0], [3, 0]), 1-d,
// 3-d, and views (transposed, a reversed slice), whose values are what gets saved.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <tensorjit/tensorjit.hpp>
#include <utility>
#include <vector>

namespace file_test {

// bf16 only where the format has it (safetensors; numpy has no bf16).
inline std::vector<std::pair<std::string, tensorjit::Tensor>> sample_tensors(bool with_bf16 = false) {
  namespace tj = tensorjit;
  std::vector<std::pair<std::string, tj::Tensor>> samples;
  std::vector<tj::DType> dtypes = {tj::f32, tj::f64, tj::i32, tj::i64, tj::boolean, tj::f16};
  if (with_bf16) dtypes.push_back(tj::bf16);
  for (tj::DType dtype : dtypes) {
    const std::string name(tj::dtype_name(dtype));
    // Fractions, negatives and zeros, so that every dtype holds distinct and false values.
    auto values = [&](std::int64_t n) { return ((tj::arange(0, double(n), 1, tj::f64) - 3) * 0.75).astype(dtype); };
    samples.emplace_back(name + "_scalar", tj::full({}, -2.5, dtype));
    samples.emplace_back(name + "_empty", values(0));
    samples.emplace_back(name + "_empty_2d", values(0).reshape({3, 0}));
    samples.emplace_back(name + "_vector", values(7));
    samples.emplace_back(name + "_cube", values(24).reshape({2, 3, 4}));
    samples.emplace_back(name + "_transposed", values(6).reshape({2, 3}).transpose());
    samples.emplace_back(name + "_reversed", values(9).slice(0, std::nullopt, std::nullopt, -2));
  }
  return samples;
}

// Same dtype, shape and values, exactly (every sample's values are exact in f64).
inline void check_same(const tensorjit::Tensor& loaded, const tensorjit::Tensor& expected, const std::string& name) {
  INFO("tensor " << name);
  CHECK(loaded.dtype() == expected.dtype());
  CHECK(loaded.shape() == expected.shape());
  CHECK(loaded.to_vector<double>() == expected.to_vector<double>());
}

}  // namespace file_test
