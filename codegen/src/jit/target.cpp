#include <tensorjit/codegen/target.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>

#include <tensorjit/error.hpp>

namespace tensorjit::codegen {
namespace {

bool is_valid_vector_bits(int bits) {
  return std::find(std::begin(kVectorBitsChoices), std::end(kVectorBitsChoices), bits) !=
         std::end(kVectorBitsChoices);
}

bool has_feature(std::string_view features, std::string_view name) {
  const std::string wanted = "+" + std::string(name);
  std::size_t start = 0;
  while (start <= features.size()) {
    const std::size_t end = std::min(features.find(',', start), features.size());
    if (features.substr(start, end - start) == wanted) return true;
    start = end + 1;
  }
  return false;
}

// The host's features in the form a TargetMachine takes, sorted so that equal CPUs give equal
// strings (the disk cache key depends on it).
std::string host_feature_string() {
  std::vector<std::string> entries;
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    entries.push_back((feature.getValue() ? "+" : "-") + feature.getKey().str());
  std::sort(entries.begin(), entries.end(),
            [](const std::string& a, const std::string& b) { return a.substr(1) < b.substr(1); });
  std::string joined;
  for (const auto& entry : entries) {
    if (!joined.empty()) joined += ',';
    joined += entry;
  }
  return joined;
}

}  // namespace

std::string TargetDescription::summary() const {
  return fmt::format("cpu {}, vector bits {} (native {})", cpu, vector_bits, native_vector_bits);
}

// The same rule as the GEMM's (kernels::native_vector_bits, kernels/src/cpu_features.cpp), so that
// the JIT'd kernels and the micro-kernels agree on the width; tests/runtime checks both on the
// host. 512 bits need the AVX-512 subsets the 512-bit micro-kernels are built with.
int native_vector_bits_from_features(std::string_view features) {
  const bool avx2 = has_feature(features, "avx2") && has_feature(features, "fma");
  if (avx2 && has_feature(features, "avx512f") && has_feature(features, "avx512vl") &&
      has_feature(features, "avx512dq") && has_feature(features, "avx512bw"))
    return 512;
  if (avx2) return 256;
  return 128;
}

int parse_vector_bits(std::string_view text, std::string_view source) {
  const auto first = text.find_first_not_of(" \t\n");
  const auto last = text.find_last_not_of(" \t\n");
  const std::string_view trimmed =
      first == std::string_view::npos ? std::string_view() : text.substr(first, last - first + 1);
  for (int bits : kVectorBitsChoices)
    if (trimmed == std::to_string(bits)) return bits;
  throw Error(
      fmt::format("{} must be 128, 256 or 512 (the vector width in bits), got '{}'", source, text));
}

TargetDescription describe_host(std::optional<int> vector_bits_override) {
  if (vector_bits_override && !is_valid_vector_bits(*vector_bits_override))
    throw Error(fmt::format("vector width override must be 128, 256 or 512 bits, got {}",
                            *vector_bits_override));
  TargetDescription target;
  target.cpu = llvm::sys::getHostCPUName().str();
  target.features = host_feature_string();
  target.native_vector_bits = native_vector_bits_from_features(target.features);
  target.vector_bits = vector_bits_override.value_or(target.native_vector_bits);
  return target;
}

}  // namespace tensorjit::codegen
