#include <doctest/doctest.h>

#include <tensorjit/codegen/target.hpp>
#include <tensorjit/error.hpp>

namespace codegen = tensorjit::codegen;

TEST_CASE("parse_vector_bits accepts 128, 256 and 512 and nothing else") {
  CHECK(codegen::parse_vector_bits("128") == 128);
  CHECK(codegen::parse_vector_bits(" 256\n") == 256);
  CHECK(codegen::parse_vector_bits("512") == 512);
  for (const char* bad : {"", "64", "1024", "256x", "abc", "-256", "0x100"})
    CHECK_THROWS_AS(codegen::parse_vector_bits(bad), tensorjit::Error);
}

TEST_CASE("a bad width names its source and the accepted values") {
  try {
    codegen::parse_vector_bits("300", "TENSORJIT_VECTOR_BITS");
    FAIL("no throw");
  } catch (const tensorjit::Error& error) {
    const std::string message = error.what();
    CHECK(message.find("TENSORJIT_VECTOR_BITS") != std::string::npos);
    CHECK(message.find("128, 256 or 512") != std::string::npos);
    CHECK(message.find("'300'") != std::string::npos);
  }
}

TEST_CASE("the native width comes from the features, not a cost model") {
  CHECK(codegen::native_vector_bits_from_features("+avx2,+avx512bw,+avx512dq,+avx512f,+avx512vl,+fma") == 512);
  // The 512-bit micro-kernels need every one of those subsets, and the JIT follows their rule.
  CHECK(codegen::native_vector_bits_from_features("+avx2,+avx512f,+fma") == 256);
  CHECK(codegen::native_vector_bits_from_features("+avx2,+avx512bw,+avx512dq,+avx512f,+avx512vl") == 128);
  CHECK(codegen::native_vector_bits_from_features("+avx2,-avx512f,+fma") == 256);
  CHECK(codegen::native_vector_bits_from_features("-avx2,+sse4.2") == 128);
  CHECK(codegen::native_vector_bits_from_features("+avx512fp16") == 128);  // not avx512f
}

TEST_CASE("the host description has a CPU, features and the override") {
  const auto host = codegen::describe_host();
  CHECK(!host.cpu.empty());
  CHECK(host.features.find("+sse2") != std::string::npos);
  CHECK(host.vector_bits == host.native_vector_bits);
  CHECK(codegen::describe_host(128).vector_bits == 128);
  CHECK(codegen::describe_host(512).vector_bits == 512);  // allowed even without AVX-512
  CHECK(codegen::describe_host(128).native_vector_bits == host.native_vector_bits);
  CHECK_THROWS_AS(codegen::describe_host(300), tensorjit::Error);
  CHECK(host.summary().find(host.cpu) != std::string::npos);
}
