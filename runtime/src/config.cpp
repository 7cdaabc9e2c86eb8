#include "runtime/src/config.hpp"

#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <sched.h>
#include <thread>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/codegen/target.hpp>
#include <tensorjit/ir/buffer.hpp>

namespace tensorjit::detail {
namespace {

// `text` without the blanks around it.
std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

// `text` as a whole number in [lowest, highest], or nothing when it is not one.
template <typename T>
std::optional<T> whole_number(std::string_view text, T lowest, T highest) {
  T n{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size() || n < lowest || n > highest) return std::nullopt;
  return n;
}

int cores_available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Reads every variable with the one rule of config.hpp.
class Variables {
 public:
  Variables(const EnvironmentReader& read, std::vector<std::string>& warnings) : read_(read), warnings_(warnings) {}

  // Sets `field` to parse(value) when `name` is set and parses; warns once when it does not.
  // `accepted` says what the variable takes, `fallback` what is used instead.
  template <typename Field, typename Parse>
  void read(const char* name, Parse parse, std::string_view accepted, std::string_view fallback, Field& field) {
    const std::optional<std::string> raw = read_(name);
    if (!raw || trimmed(*raw).empty()) return;
    if (const auto value = parse(trimmed(*raw))) {
      field = *value;
      return;
    }
    warnings_.push_back(
        fmt::format("{}='{}' is ignored: it takes {}; using {}", name, *raw, accepted, fallback));
  }

 private:
  const EnvironmentReader& read_;
  std::vector<std::string>& warnings_;
};

std::optional<int> vector_bits(std::string_view text) {
  for (int bits : codegen::kVectorBitsChoices)
    if (text == std::to_string(bits)) return bits;
  return std::nullopt;
}

std::optional<std::string> log_level(std::string_view text) {
  if (!codegen::is_log_level(text)) return std::nullopt;
  return std::string(text);
}

std::optional<bool> zero_or_one(std::string_view text) {
  if (text != "0" && text != "1") return std::nullopt;
  return text == "1";
}

std::optional<std::filesystem::path> any_path(std::string_view text) { return std::filesystem::path(text); }

}  // namespace

Config read_config(const EnvironmentReader& read, std::vector<std::string>& warnings) {
  Config c;
  Variables v(read, warnings);
  // VECTOR_BITS first, so that a valid TENSORJIT_VECTOR_BITS overrides it and a bad one leaves it.
  v.read("VECTOR_BITS", vector_bits, "128, 256 or 512", "the CPU's native width", c.vector_bits);
  v.read("TENSORJIT_VECTOR_BITS", vector_bits, "128, 256 or 512",
         c.vector_bits ? fmt::format("VECTOR_BITS's {}", *c.vector_bits) : "the CPU's native width",
         c.vector_bits);
  c.threads = cores_available();
  v.read("TENSORJIT_THREADS", [](std::string_view t) { return whole_number(t, 1, 1024); },
         "a whole number from 1 to 1024", fmt::format("{} (the cores this process may use)", c.threads), c.threads);
  v.read("TENSORJIT_LOG", log_level, "off, critical, error, warn, info, debug or trace", "warn", c.log_level);
  v.read("TENSORJIT_DUMP", any_path, "a folder", "no dumps", c.dump_dir);
  v.read("TENSORJIT_CACHE_DIR", any_path, "a folder", "no disk cache", c.cache_dir);
  v.read("TENSORJIT_TIERED", zero_or_one, "1 (quick code first, optimized when used again) or 0 (optimized at once)",
         "1", c.tiered);
  constexpr std::size_t kMostMebibytes = std::size_t{1} << 30;
  auto mebibytes = [&](std::string_view t) { return whole_number<std::size_t>(t, 0, kMostMebibytes); };
  v.read("TENSORJIT_BUFFER_CACHE_MB", mebibytes, "a whole number of MiB (0 keeps no freed buffers)",
         fmt::format("{}", c.buffer_cache_mb), c.buffer_cache_mb);
  v.read("TENSORJIT_SPIN_US", [](std::string_view t) { return whole_number(t, 0, 1000000); },
         "a whole number of microseconds from 0 to 1000000", fmt::format("{}", c.spin_microseconds),
         c.spin_microseconds);
  v.read("TENSORJIT_STREAMING_MB", mebibytes, "a whole number of MiB (0 streams every kernel that can)",
         fmt::format("{}", c.streaming_mb), c.streaming_mb);
  v.read("TENSORJIT_PERF_MAP", zero_or_one, "1 (name the kernels in /tmp/perf-<pid>.map) or 0", "0", c.perf_map);
  return c;
}

const Config& config() {
  static const Config c = [] {
    std::vector<std::string> warnings;
    Config read = read_config(
        [](const char* name) -> std::optional<std::string> {
          const char* value = std::getenv(name);
          if (!value) return std::nullopt;
          return std::string(value);
        },
        warnings);
    codegen::set_log_level(read.log_level);
    for (const auto& warning : warnings) codegen::logger().warn("{}", warning);
    ir::Buffer::set_cache_limit(read.buffer_cache_mb << 20);
    return read;
  }();
  return c;
}

}  // namespace tensorjit::detail
