// The CPU the JIT compiles for and the vector width kernels are built at. LLVM-free: the runtime,
// dumps and cache keys use this description; codegen/src turns it into an LLVM TargetMachine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tensorjit::codegen {

// Vector widths a kernel may be built at, in bits (docs/contracts.md, contract 8).
inline constexpr int kVectorBitsChoices[] = {128, 256, 512};

struct TargetDescription {
  std::string cpu;         // LLVM's name for the host CPU, e.g. "znver4"
  std::string features;    // every host feature LLVM knows, "+avx2,-avx512fp16,...", sorted
  int native_vector_bits;  // from the features: 512 with avx512f, 256 with avx2, else 128
  int vector_bits;         // what kernels are built at: the override if given, else native

  // One line for dumps and logs: "cpu znver4, vector bits 256 (native 512)".
  std::string summary() const;
};

// The host CPU, with the kernels' width set to `vector_bits_override` when given (a width the
// CPU lacks is allowed: LLVM splits the vectors into the registers it has, with the same bits).
// Throws tensorjit::Error if the override is not 128, 256 or 512.
TargetDescription describe_host(std::optional<int> vector_bits_override = std::nullopt);

// The native width implied by an LLVM feature string ("+avx512f,+avx2,..."). Deliberately not
// LLVM's cost model, which reports 256 bits for AVX-512 server cores.
int native_vector_bits_from_features(std::string_view features);

// Parses the value of a width override (the runtime reads VECTOR_BITS / TENSORJIT_VECTOR_BITS).
// `source` names where the text came from, for the message. Surrounding blanks are ignored.
// Throws tensorjit::Error unless the value is exactly 128, 256 or 512.
int parse_vector_bits(std::string_view text, std::string_view source = "VECTOR_BITS");

}  // namespace tensorjit::codegen
