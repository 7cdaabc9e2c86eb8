// Helpers shared by the codegen tests: a scratch directory and running the multiply-add kernel.
#pragma once

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <tensorjit/codegen/jit.hpp>

#include "multiply_add_kernel.hpp"

namespace tensorjit::codegen::testing {

// A fresh directory under the system temporary directory, removed with its contents at scope end.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& purpose) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("tensorjit-" + purpose + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(++counter));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline JitOptions options_with_width(int vector_bits) {
  JitOptions options;
  options.vector_bits = vector_bits;
  return options;
}

inline JitOptions options_with_cache(const std::filesystem::path& directory) {
  JitOptions options;
  options.cache_dir = directory;
  return options;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs a multiply-add kernel over `count` seeded inputs and returns y.
inline std::vector<float> run_multiply_add(const CompiledKernel& kernel, std::size_t count,
                                           unsigned seed = 1) {
  const auto a = random_floats(count, seed);
  const auto b = random_floats(count, seed + 1);
  const auto c = random_floats(count, seed + 2);
  std::vector<float> y(count, -1.0f);
  kernel.as<MultiplyAddKernel>()(a.data(), b.data(), c.data(), y.data(),
                                 static_cast<std::int64_t>(count));
  return y;
}

inline std::vector<float> expected_multiply_add(std::size_t count, unsigned seed = 1) {
  return multiply_add_reference(random_floats(count, seed), random_floats(count, seed + 1),
                                random_floats(count, seed + 2));
}

// Same bits, element by element (NaN-safe, -0.0-exact).
inline bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() &&
         (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
}

}  // namespace tensorjit::codegen::testing
