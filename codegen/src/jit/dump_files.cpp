#include "codegen/src/jit/dump_files.hpp"

#include <fstream>

#include <llvm/Support/raw_ostream.h>

#include "codegen/src/jit/warn_once.hpp"

namespace tensorjit::codegen {
namespace {

void warn_once_per_folder(const std::filesystem::path& folder, const std::string& reason) {
  warn_once("dump folder " + folder.string(),
            "cannot write kernel dumps to '" + folder.string() + "': " + reason);
}

}  // namespace

bool write_dump_file(const std::filesystem::path& folder, const std::string& file_name,
                     std::string_view text) noexcept {
  try {
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) {
      warn_once_per_folder(folder, error.message());
      return false;
    }
    const auto path = folder / file_name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      warn_once_per_folder(folder, "writing " + path.filename().string() + " failed");
      return false;
    }
    return true;
  } catch (const std::exception& exception) {
    warn_once_per_folder(folder, exception.what());
    return false;
  } catch (...) {
    return false;  // nothing else is thrown by the code above; a noexcept function must not leak
  }
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  stream.flush();
  return text;
}

}  // namespace tensorjit::codegen
