// The environment's one rule (README, "Environment"): blanks around a value are ignored, and a
// value a variable does not take is ignored with one warning that names it and the fallback.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/src/config.hpp"

namespace detail = tensorjit::detail;

namespace {

struct Read {
  detail::Config config;
  std::vector<std::string> warnings;
};

Read read_with(const std::map<std::string, std::string>& variables) {
  Read out;
  out.config = detail::read_config(
      [&](const char* name) -> std::optional<std::string> {
        auto it = variables.find(name);
        if (it == variables.end()) return std::nullopt;
        return it->second;
      },
      out.warnings);
  return out;
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("config: blanks around every variable's value are ignored") {
  auto r = read_with({{"VECTOR_BITS", " 256"},
                      {"TENSORJIT_THREADS", " 2"},
                      {"TENSORJIT_LOG", "info\n"},
                      {"TENSORJIT_DUMP", " /tmp/dumps "},
                      {"TENSORJIT_CACHE_DIR", "\t/tmp/cache"},
                      {"TENSORJIT_TIERED", " 0 "},
                      {"TENSORJIT_BUFFER_CACHE_MB", "64 "},
                      {"TENSORJIT_SPIN_US", " 0"},
                      {"TENSORJIT_STREAMING_MB", " 8"},
                      {"TENSORJIT_PERF_MAP", "1 "}});
  CHECK(r.warnings.empty());
  CHECK(r.config.vector_bits == 256);
  CHECK(r.config.threads == 2);
  CHECK(r.config.log_level == "info");
  CHECK(r.config.dump_dir == "/tmp/dumps");
  CHECK(r.config.cache_dir == "/tmp/cache");
  CHECK(r.config.tiered == false);
  CHECK(r.config.buffer_cache_mb == 64);
  CHECK(r.config.spin_microseconds == 0);
  CHECK(r.config.streaming_mb == 8);
  CHECK(r.config.perf_map);
}

TEST_CASE("config: a blank value is unset") {
  auto r = read_with({{"TENSORJIT_THREADS", "  "}, {"TENSORJIT_DUMP", " "}, {"VECTOR_BITS", ""}});
  CHECK(r.warnings.empty());
  CHECK(r.config.threads == read_with({}).config.threads);
  CHECK(r.config.dump_dir.empty());
  CHECK(!r.config.vector_bits);
}

TEST_CASE("config: each bad value gives one warning and the documented default") {
  const detail::Config defaults = read_with({}).config;
  struct Case {
    std::string name, value, fallback;
  };
  const std::vector<Case> cases = {
      {"VECTOR_BITS", "300", "using the CPU's native width"},
      {"TENSORJIT_VECTOR_BITS", "wide", "using the CPU's native width"},
      {"TENSORJIT_THREADS", "2 threads", "the cores this process may use"},
      {"TENSORJIT_THREADS", "0", "the cores this process may use"},
      {"TENSORJIT_LOG", "loud", "using warn"},
      {"TENSORJIT_TIERED", "yes", "using 1"},
      {"TENSORJIT_BUFFER_CACHE_MB", "-1", "using 1024"},
      {"TENSORJIT_SPIN_US", "2000000", "using 1000"},
      {"TENSORJIT_STREAMING_MB", "16MB", "using 16"},
      {"TENSORJIT_PERF_MAP", "on", "using 0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.value);
    auto r = read_with({{c.name, c.value}});
    REQUIRE(r.warnings.size() == 1);
    const std::string& w = r.warnings[0];
    CHECK(w.find(c.name + "='" + c.value + "' is ignored") != std::string::npos);
    CHECK(w.find("it takes ") != std::string::npos);
    CHECK(w.find(c.fallback) != std::string::npos);
    CHECK(r.config.vector_bits == defaults.vector_bits);
    CHECK(r.config.threads == defaults.threads);
    CHECK(r.config.log_level == defaults.log_level);
    CHECK(r.config.tiered == defaults.tiered);
    CHECK(r.config.buffer_cache_mb == defaults.buffer_cache_mb);
    CHECK(r.config.spin_microseconds == defaults.spin_microseconds);
    CHECK(r.config.streaming_mb == defaults.streaming_mb);
    CHECK(r.config.perf_map == defaults.perf_map);
  }
}

TEST_CASE("config: a bad TENSORJIT_VECTOR_BITS leaves VECTOR_BITS in force") {
  auto r = read_with({{"VECTOR_BITS", "128"}, {"TENSORJIT_VECTOR_BITS", "100"}});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("using VECTOR_BITS's 128") != std::string::npos);
  CHECK(r.config.vector_bits == 128);
  CHECK(read_with({{"VECTOR_BITS", "128"}, {"TENSORJIT_VECTOR_BITS", "512"}}).config.vector_bits == 512);
}

}  // TEST_SUITE
