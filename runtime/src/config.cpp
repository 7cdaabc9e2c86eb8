#include "runtime/src/config.hpp"

#include <charconv>
#include <cstdlib>
#include <sched.h>
#include <thread>

#include <tensorjit/codegen/log.hpp>
#include <tensorjit/codegen/target.hpp>
#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/check.hpp>

namespace tensorjit::detail {
namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

// `text` as a whole number in [lowest, highest], or nothing when it is not one.
template <typename T>
std::optional<T> whole_number(const std::string& text, T lowest, T highest) {
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

Config read_config() {
  Config c;
  if (auto v = env("TENSORJIT_VECTOR_BITS")) c.vector_bits = codegen::parse_vector_bits(*v, "TENSORJIT_VECTOR_BITS");
  else if (auto w = env("VECTOR_BITS")) c.vector_bits = codegen::parse_vector_bits(*w, "VECTOR_BITS");
  c.threads = cores_available();
  if (auto v = env("TENSORJIT_THREADS")) {
    auto n = whole_number(*v, 1, 1024);
    TJ_CHECK(n) << "TENSORJIT_THREADS=" << *v << " is not a thread count; give a whole number from 1 to 1024";
    c.threads = *n;
  }
  if (auto v = env("TENSORJIT_LOG")) c.log_level = *v;
  codegen::set_log_level(c.log_level);
  if (auto v = env("TENSORJIT_DUMP")) c.dump_dir = *v;
  if (auto v = env("TENSORJIT_CACHE_DIR")) c.cache_dir = *v;
  if (auto v = env("TENSORJIT_TIERED")) {
    TJ_CHECK(*v == "0" || *v == "1") << "TENSORJIT_TIERED=" << *v << " is not 0 or 1; give 1 to compile each "
                                     << "kernel quickly first and optimize it when used again, 0 to "
                                     << "compile every kernel optimized at once";
    c.tiered = *v == "1";
  }
  constexpr std::size_t kMostMebibytes = std::size_t{1} << 30;
  if (auto v = env("TENSORJIT_BUFFER_CACHE_MB")) {
    auto mb = whole_number<std::size_t>(*v, 0, kMostMebibytes);
    TJ_CHECK(mb) << "TENSORJIT_BUFFER_CACHE_MB=" << *v << " is not a size; give a whole number of MiB (0 keeps "
                 << "no freed buffers for reuse)";
    c.buffer_cache_mb = *mb;
  }
  if (auto v = env("TENSORJIT_SPIN_US")) {
    auto us = whole_number(*v, 0, 1000000);
    TJ_CHECK(us) << "TENSORJIT_SPIN_US=" << *v << " is not a time; give a whole number of microseconds from 0 "
                 << "(pool threads sleep as soon as they are idle) to 1000000";
    c.spin_microseconds = *us;
  }
  if (auto v = env("TENSORJIT_STREAMING_MB")) {
    auto mb = whole_number<std::size_t>(*v, 0, kMostMebibytes);
    TJ_CHECK(mb) << "TENSORJIT_STREAMING_MB=" << *v << " is not a size; give a whole number of MiB (0 writes "
                 << "every elementwise kernel's outputs with non-temporal stores)";
    c.streaming_mb = *mb;
  }
  ir::Buffer::set_cache_limit(c.buffer_cache_mb << 20);
  return c;
}

}  // namespace

const Config& config() {
  static const Config c = read_config();
  return c;
}

}  // namespace tensorjit::detail
