// Run-time CPU detection (CPUID through GCC's __builtin_cpu_supports, which also checks that the
// OS saves the wide registers) and the default vector width.
#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels {

bool cpu_supports(InstructionSet instruction_set) {
  switch (instruction_set) {
    case InstructionSet::best:
    case InstructionSet::portable:
      return true;
    case InstructionSet::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case InstructionSet::avx512:
      // isa_avx512.cpp is compiled with -mavx512f -mavx512vl -mavx512dq -mavx512bw (and FMA).
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("fma");
  }
  return false;
}

int native_vector_bits() {
  if (cpu_supports(InstructionSet::avx512)) return 512;
  if (cpu_supports(InstructionSet::avx2)) return 256;
  return 128;
}

}  // namespace tensorjit::kernels
