// The avx512 kernel family. This unit's compile flags (kernels/CMakeLists.txt) select the
// instruction set; the code is the shared templates of family_builder.hpp.
#include "family_builder.hpp"

namespace tensorjit::kernels::detail {

const KernelFamily& avx512_family(int vector_bits) {
  return family_for_width<avx512_blocking>("avx512", vector_bits);
}

}  // namespace tensorjit::kernels::detail
