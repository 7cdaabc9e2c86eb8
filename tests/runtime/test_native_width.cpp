// The JIT'd kernels and the GEMM's micro-kernels take the same native width on this CPU: one rule,
// written in codegen/src/jit/target.cpp and kernels/src/cpu_features.cpp.
#include <doctest/doctest.h>

#include <tensorjit/codegen/target.hpp>
#include <tensorjit/kernels/gemm.hpp>

TEST_CASE("the JIT and the GEMM agree on the host's native vector width") {
  const auto host = tensorjit::codegen::describe_host(std::nullopt);
  INFO(host.summary());
  CHECK(host.native_vector_bits == tensorjit::kernels::native_vector_bits());
}
