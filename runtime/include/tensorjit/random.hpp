// Random numbers: counter-based Philox4x32-10, as JAX's keys. A key and a shape determine every
// value, on any machine, width and thread count, whichever graph the values are fused into; the
// values are computed inside the fused kernels from each element's index, so `x * (uniform(k,
// x.shape()) > p)` writes no random tensor. The exact definitions: docs/contracts.md, "Random
// numbers".
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit {

// A Philox key: two 32-bit words. Keys are plain values; draw with each key once, and split it
// for more.
struct Key {
  std::array<std::uint32_t, 2> words{};
  friend bool operator==(const Key&, const Key&) = default;
};

// (seed's low 32 bits, seed's high 32 bits).
Key key(std::uint64_t seed);
// `n` keys independent of `k` and of each other: key i is words 0 and 1 of the Philox4x32-10 block
// at counter (i, 0, 0, 1) under k, a counter no draw with k uses.
std::vector<Key> split(const Key& k, std::int64_t n);

// i32: element i (row-major) is word i % 4 of the Philox4x32-10 block at counter (i / 4 as a 64-bit
// number in words 0 and 1, 0, 0) under k, the bits as an i32.
Tensor random_bits(const Key& k, const Shape& shape);
// Uniform on [low, high): f32 from the top 24 bits of each element's word (every value of [0, 1) a
// multiple of 2^-24, exactly), f64 from 53 bits of words 2i and 2i + 1; then * (high - low) + low
// when that is not [0, 1).
Tensor uniform(const Key& k, const Shape& shape, double low = 0, double high = 1, DType dtype = f32);
// Normal: Box-Muller, element i from the uniforms u1, u2 of element i under k and under k's second
// stream: sqrt(-2 log(1 - u1)) * cos(2 pi u2), then * std + mean.
Tensor normal(const Key& k, const Shape& shape, double mean = 0, double std = 1, DType dtype = f32);
// Integers in [low, high), high - low at most 2^32: low + (w * (high - low)) >> 32 for w the
// element's word taken as unsigned (Lemire's multiply-shift; each value's chance within
// (high - low) / 2^32 of the others').
Tensor randint(const Key& k, const Shape& shape, std::int64_t low, std::int64_t high, DType dtype = i64);
// bool: uniform(k, shape) < p, p in [0, 1].
Tensor bernoulli(const Key& k, double p, const Shape& shape);
// i64[n]: a permutation of 0 .. n - 1, the stable argsort of random_bits(k, {n}).
Tensor permutation(const Key& k, std::int64_t n);
// Each element of floating x zeroed with probability p (where uniform(k, x.shape()) < p), the rest
// scaled by 1 / (1 - p); p in [0, 1].
Tensor dropout(const Tensor& x, double p, const Key& k);

}  // namespace tensorjit
