// Every environment variable tensorjit reads, read once per process (README, "Environment").
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tensorjit::detail {

struct Config {
  std::optional<int> vector_bits;       // TENSORJIT_VECTOR_BITS, else VECTOR_BITS: 128, 256 or 512
  int threads = 1;                      // TENSORJIT_THREADS, else the cores this process may use
  std::string log_level = "warn";       // TENSORJIT_LOG
  std::filesystem::path dump_dir;       // TENSORJIT_DUMP (empty: no dumps)
  std::filesystem::path cache_dir;      // TENSORJIT_CACHE_DIR (empty: no disk cache)
  bool tiered = true;                   // TENSORJIT_TIERED: 1 (quick code first) or 0 (optimized at once)
  std::size_t buffer_cache_mb = 1024;   // TENSORJIT_BUFFER_CACHE_MB: freed large buffers kept for reuse
  int spin_microseconds = 1000;         // TENSORJIT_SPIN_US: how long idle pool threads spin before sleeping
  std::size_t streaming_mb = 16;        // TENSORJIT_STREAMING_MB: outputs this large use non-temporal stores
  bool perf_map = false;                // TENSORJIT_PERF_MAP: 1 names the kernels in /tmp/perf-<pid>.map

  // Whether a kernel whose outputs take `output_bytes` together writes them with non-temporal
  // stores (TENSORJIT_STREAMING_MB).
  bool streams(std::size_t output_bytes) const { return output_bytes >= (streaming_mb << 20); }
};

// A variable's value, or nothing when it is unset.
using EnvironmentReader = std::function<std::optional<std::string>(const char* name)>;

// The configuration the variables `read` gives describe, with one rule for every variable
// (README, "Environment"): blanks around a value are ignored, and an empty value is unset; a value
// the variable does not take is ignored as if unset, with one line in `warnings` naming the
// variable, the value, what it takes and what is used instead. One rule, so that
// TENSORJIT_THREADS=" 2" is read as VECTOR_BITS=" 256" is.
Config read_config(const EnvironmentReader& read, std::vector<std::string>& warnings);

// The process's configuration, read from the environment at the first eval, which also sets the
// log level, logs the warnings and applies the buffer cache's limit to ir::Buffer.
const Config& config();

}  // namespace tensorjit::detail
