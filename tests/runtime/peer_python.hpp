// The benchmarks' python (bench/.venv, TENSORJIT_PEER_PYTHON) for the tests that compare with
// NumPy and PyTorch: they run when it imports them, and report SKIPPED otherwise.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace peer_python {

inline std::string path() { return TENSORJIT_PEER_PYTHON; }

// Whether the benchmarks' python exists and imports `modules` ("numpy, torch").
inline bool imports(const std::string& modules) {
  std::error_code missing;
  return std::filesystem::exists(path(), missing) &&
         std::system((path() + " -c 'import " + modules + "' >/dev/null 2>&1").c_str()) == 0;
}

// Runs `script`, a file in `folder`, there; its output goes to log.txt beside it. The exit status.
inline int run(const std::string& folder, const std::string& script) {
  return std::system(("cd '" + folder + "' && " + path() + " " + script + " > log.txt 2>&1").c_str());
}

}  // namespace peer_python
