// The bytes of a value in row-major order, the comparison every oracle check of the JIT uses
// (tests/runtime/jit_oracle.hpp, tests/fuzz/differential_fuzz.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::testing {

// The elements of a value in row-major order, as raw bytes; every NaN is written as one canonical
// NaN, since the sign and payload of a NaN that an invalid operation makes are not part of the
// contract (the interpreter's compiler may fold one where the JIT computes another).
inline std::vector<unsigned char> bytes_of(const ir::Value& v) {
  const std::size_t size = itemsize(v.dtype);
  const auto& shape = v.layout.shape;
  std::int64_t numel = 1;
  for (auto e : shape) numel *= e;
  static const float nan32 = std::numeric_limits<float>::quiet_NaN();
  static const double nan64 = std::numeric_limits<double>::quiet_NaN();
  std::vector<unsigned char> out;
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t element = v.layout.offset, rest = flat;
    for (std::size_t d = shape.size(); d-- > 0;) {
      element += (rest % shape[d]) * v.layout.strides[d];
      rest /= shape[d];
    }
    const auto* p = static_cast<const unsigned char*>(v.buffer->data()) + element * static_cast<std::int64_t>(size);
    if (v.dtype == DType::f32 && std::isnan(*reinterpret_cast<const float*>(p)))
      p = reinterpret_cast<const unsigned char*>(&nan32);
    if (v.dtype == DType::f64 && std::isnan(*reinterpret_cast<const double*>(p)))
      p = reinterpret_cast<const unsigned char*>(&nan64);
    static const std::uint16_t nan16 = 0x7E00, nan_bf16 = 0x7FC0;
    if (v.dtype == DType::f16 && std::isnan(static_cast<float>(*reinterpret_cast<const float16_t*>(p))))
      p = reinterpret_cast<const unsigned char*>(&nan16);
    if (v.dtype == DType::bf16 && std::isnan(static_cast<float>(*reinterpret_cast<const bfloat16_t*>(p))))
      p = reinterpret_cast<const unsigned char*>(&nan_bf16);
    out.insert(out.end(), p, p + size);
  }
  return out;
}

}  // namespace tensorjit::testing
