// Run-time CPU detection (CPUID through GCC's __builtin_cpu_supports, which also checks that the
// OS saves the wide registers) and the default vector width.
#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels {

namespace {

struct CpuFeatures {
  bool avx2 = false;
  bool avx512 = false;
};

// Detected once: gemm() asks on every call.
const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    __builtin_cpu_init();
    CpuFeatures detected;
    // isa_avx2.cpp is compiled with -mavx2 -mfma -mf16c (F16C converts f16 operands as they are
    // packed; every AVX2 CPU has it).
    detected.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    // isa_avx512.cpp is compiled with -mavx512f -mavx512vl -mavx512dq -mavx512bw (and FMA).
    detected.avx512 = detected.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
    return detected;
  }();
  return features;
}

}  // namespace

bool cpu_supports(InstructionSet instruction_set) {
  switch (instruction_set) {
    case InstructionSet::best:
    case InstructionSet::portable:
      return true;
    case InstructionSet::avx2:
      return cpu_features().avx2;
    case InstructionSet::avx512:
      return cpu_features().avx512;
  }
  return false;
}

// Measured (docs/gemm.md): with AVX-512 the 512-bit kernels are the fastest on Zen 5, whose FMA
// units are 512 bits wide. The JIT's native width follows the same rule
// (codegen::native_vector_bits_from_features); tests/runtime checks that both agree on the host.
int native_vector_bits() {
  if (cpu_supports(InstructionSet::avx512)) return 512;
  if (cpu_supports(InstructionSet::avx2)) return 256;
  return 128;
}

}  // namespace tensorjit::kernels
