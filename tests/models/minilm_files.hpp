// Where the model tests find all-MiniLM-L6-v2 (scripts/fetch_minilm.sh puts it there) and the
// Python of bench/.venv with `tokenizers` and PyTorch. The tests that need them print "SKIPPED:"
// and return when they are absent; ctest then reports those tests skipped, not passed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace model_test {

// TENSORJIT_MINILM_DIR, else ${XDG_CACHE_HOME:-~/.cache}/tensorjit/all-MiniLM-L6-v2, when it holds
// the model.
inline std::optional<std::string> minilm_folder() {
  std::string folder;
  if (const char* chosen = std::getenv("TENSORJIT_MINILM_DIR"); chosen != nullptr && *chosen != '\0') {
    folder = chosen;
  } else if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
    folder = std::string(cache) + "/tensorjit/all-MiniLM-L6-v2";
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    folder = std::string(home) + "/.cache/tensorjit/all-MiniLM-L6-v2";
  }
  if (folder.empty() || !std::filesystem::exists(folder + "/model.safetensors") ||
      !std::filesystem::exists(folder + "/tokenizer.json"))
    return std::nullopt;
  return folder;
}

// bench/.venv's python when it can import `module`.
inline std::optional<std::string> venv_python_with(const std::string& module) {
  const std::string python = std::string(TENSORJIT_SOURCE_DIR) + "/bench/.venv/bin/python";
  std::error_code missing;  // a dangling or looping link is absent too, not an error
  if (!std::filesystem::exists(python, missing)) return std::nullopt;
  if (std::system((python + " -c 'import " + module + "' >/dev/null 2>&1").c_str()) != 0) return std::nullopt;
  return python;
}

}  // namespace model_test
