// Warnings about a lasting condition (an unwritable dump folder or cache directory) are said once
// per place, not once per kernel.
#pragma once

#include <string>

namespace tensorjit::codegen {

// Logs `message` at warn the first time `place` is given in this process. Never throws.
void warn_once(const std::string& place, const std::string& message) noexcept;

}  // namespace tensorjit::codegen
