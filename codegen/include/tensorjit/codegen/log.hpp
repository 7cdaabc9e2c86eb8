// The project's spdlog logger, "tensorjit", on stderr. Default level: warn. At info the JIT writes
// one line per compiled kernel with its compile time; at debug also cache hits and loads.
#pragma once

#include <memory>
#include <string_view>

#include <spdlog/spdlog.h>

namespace tensorjit::codegen {

// The logger named "tensorjit": the registered one if the runtime made it first, else a new one.
spdlog::logger& logger();

// Sets the level from its name as TENSORJIT_LOG spells it: off, critical, error, warn, info,
// debug, trace. Throws tensorjit::Error on any other value.
void set_log_level(std::string_view level_name);
// Whether set_log_level takes `level_name`.
bool is_log_level(std::string_view level_name);

}  // namespace tensorjit::codegen
