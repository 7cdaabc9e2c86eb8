// Writing dump files (docs/contracts.md, contract 7: a dump that cannot be written says so once,
// never silently).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <llvm/IR/Module.h>

namespace tensorjit::codegen {

// Writes `text` to <folder>/<file_name>, creating the folder. On failure logs a warning naming
// the folder and the reason, once per folder for the process, and returns false. Never throws.
bool write_dump_file(const std::filesystem::path& folder, const std::string& file_name,
                     std::string_view text) noexcept;

// The module as LLVM's textual IR.
std::string module_text(const llvm::Module& module);

}  // namespace tensorjit::codegen
