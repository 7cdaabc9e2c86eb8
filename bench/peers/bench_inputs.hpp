// The inputs every peer computes on, made the same way in C++ and in Python
// (bench/driver/inputs.py), so that no peer needs an input file and all see identical values:
// a splitmix64 hash of (stream, index) cut to its top 24 bits gives k * 2^-23 - 1, a value in
// [-1, 1) that f32 and f64 both hold exactly.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

inline double input_value(std::uint64_t stream, std::uint64_t index) {
  std::uint64_t z = ((stream << 40) + index) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 40) * 0x1p-23 - 1.0;
}

// `count` values of stream `stream`; `positive` maps them to [0, 1) (e.g. Adam's second moment).
template <class T>
std::vector<T> make_input(std::uint64_t stream, std::int64_t count, bool positive = false) {
  std::vector<T> values(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const double value = input_value(stream, std::uint64_t(i));
    values[i] = T(positive ? value * 0.5 + 0.5 : value);
  }
  return values;
}

// W12's token ids: the values of stream `stream` as their integers k (k * 2^-23 - 1), modulo the
// vocabulary (bench_inputs.py's embedding_ids).
inline std::vector<std::int64_t> embedding_ids(std::uint64_t stream, std::int64_t count, std::int64_t vocabulary) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    ids[std::size_t(i)] = std::int64_t((input_value(stream, std::uint64_t(i)) + 1.0) * 0x1p23) % vocabulary;
  return ids;
}

}  // namespace bench
