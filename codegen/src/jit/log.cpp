#include <tensorjit/codegen/log.hpp>

#include <mutex>
#include <string>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <tensorjit/error.hpp>

namespace tensorjit::codegen {

spdlog::logger& logger() {
  // Made once; a logger registered under the same name by another folder first is reused.
  static const std::shared_ptr<spdlog::logger> instance = [] {
    static std::mutex registry_mutex;
    std::lock_guard lock(registry_mutex);
    if (auto existing = spdlog::get("tensorjit")) return existing;
    try {
      auto made = spdlog::stderr_color_mt("tensorjit");
      made->set_level(spdlog::level::warn);
      return made;
    } catch (const spdlog::spdlog_ex&) {
      return spdlog::get("tensorjit");  // registered concurrently by another folder
    }
  }();
  return *instance;
}

namespace {
constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
    {"off", spdlog::level::off},    {"critical", spdlog::level::critical},
    {"error", spdlog::level::err},  {"warn", spdlog::level::warn},
    {"info", spdlog::level::info},  {"debug", spdlog::level::debug},
    {"trace", spdlog::level::trace}};
}  // namespace

bool is_log_level(std::string_view level_name) {
  for (const auto& entry : kLevels)
    if (entry.first == level_name) return true;
  return false;
}

void set_log_level(std::string_view level_name) {
  for (const auto& [name, level] : kLevels) {
    if (name == level_name) {
      logger().set_level(level);
      return;
    }
  }
  throw Error(fmt::format(
      "TENSORJIT_LOG must be one of off, critical, error, warn, info, debug, trace; got '{}'",
      level_name));
}

}  // namespace tensorjit::codegen
