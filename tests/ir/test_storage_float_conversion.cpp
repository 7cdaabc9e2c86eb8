// dtype.hpp's software conversions of f16 and bf16 against the hardware the kernels use: F16C
// (vcvtph2ps, vcvtps2ph) for f16 on every f16 value and on a million floats spread over all 2^32
// bit patterns, and known values for both (round to nearest even, subnormals, overflow, NaN).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <immintrin.h>

#include <tensorjit/dtype.hpp>

namespace tj = tensorjit;

namespace {

__attribute__((target("f16c"))) float hardware_widen(std::uint16_t bits) { return _cvtsh_ss(bits); }
__attribute__((target("f16c"))) std::uint16_t hardware_narrow(float value) {
  return static_cast<std::uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace

TEST_SUITE("ir") {

TEST_CASE("f16: the software conversions give F16C's bits") {
  if (!__builtin_cpu_supports("f16c")) {
    MESSAGE("SKIPPED: this CPU has no F16C");
    return;
  }
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    REQUIRE(std::bit_cast<std::uint32_t>(tj::float_from_f16_bits(bits)) ==
            std::bit_cast<std::uint32_t>(hardware_widen(bits)));
  }
  // 4099 is prime: the samples cover every exponent and NaN payload class.
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4099) {
    const float value = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    CAPTURE(b);
    REQUIRE(tj::f16_bits_from_float(value) == hardware_narrow(value));
  }
}

TEST_CASE("f16 and bf16: round to nearest even, subnormals kept, overflow to inf, NaN kept") {
  CHECK(tj::f16_bits_from_float(1.0f) == 0x3C00);
  CHECK(tj::f16_bits_from_float(65504.0f) == 0x7BFF);
  CHECK(tj::f16_bits_from_float(65519.99f) == 0x7BFF);
  CHECK(tj::f16_bits_from_float(65520.0f) == 0x7C00);  // the tie rounds to even: inf
  CHECK(tj::f16_bits_from_float(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(tj::f16_bits_from_float(std::ldexp(1.0f, -25)) == 0x0000);  // the tie rounds to even: 0
  CHECK(tj::f16_bits_from_float(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(tj::f16_bits_from_float(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);   // tie to even
  CHECK(tj::f16_bits_from_float(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);   // tie to even, up
  CHECK(std::isnan(tj::float_from_f16_bits(tj::f16_bits_from_float(NAN))));
  CHECK(tj::bf16_bits_from_float(1.0f) == 0x3F80);
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x3F808000u)) == 0x3F80);  // tie to even
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x3F818000u)) == 0x3F82);
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x00008000u)) == 0x0000);  // subnormal tie
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x00018000u)) == 0x0002);  // kept, not flushed
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x7F7FFFFFu)) == 0x7F80);  // overflow to inf
  CHECK(tj::bf16_bits_from_float(std::bit_cast<float>(0x7F800001u)) == 0x7FC0);  // a NaN stays NaN
  CHECK(tj::float_from_bf16_bits(0xC0A0) == -5.0f);
  for (std::uint32_t h = 0; h < 65536; ++h) {  // every value converts back to itself
    const auto bits = static_cast<std::uint16_t>(h);
    if (std::isnan(tj::float_from_bf16_bits(bits))) continue;
    REQUIRE(tj::bf16_bits_from_float(tj::float_from_bf16_bits(bits)) == bits);
    if (!std::isnan(tj::float_from_f16_bits(bits))) REQUIRE(tj::f16_bits_from_float(tj::float_from_f16_bits(bits)) == bits);
  }
}

}  // TEST_SUITE
