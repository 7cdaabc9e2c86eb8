// The runtime suites' comparisons with NumPy and PyTorch from the benchmarks' venv
// (TENSORJIT_PEER_PYTHON, bench/.venv): a Python script run in a fresh folder, next to the inputs
// saved there as <name>.npy, writes .npy files that are then compared with tensors bit for bit.
// Without a Python that imports numpy and torch the case says SKIPPED and checks nothing.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "jit_oracle.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::testing {

class PeerCheck {
 public:
  // Saves `inputs`, runs `script`; false, with a SKIPPED message, when the peers are absent.
  bool run(const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& script) {
    const std::string python = TENSORJIT_PEER_PYTHON;
    std::error_code missing;
    if (!std::filesystem::exists(python, missing) ||
        std::system((python + " -c 'import numpy, torch' >/dev/null 2>&1").c_str()) != 0) {
      MESSAGE("SKIPPED: " << python << " cannot import numpy and torch, so the peer checks did not run");
      return false;
    }
    for (const auto& [name, tensor] : inputs) save_npy(folder_ / (name + ".npy"), tensor);
    file_test::write_bytes(folder_ / "peers.py", script);
    const std::string command = "cd '" + folder_.path() + "' && " + python + " peers.py > log.txt 2>&1";
    const int status = std::system(command.c_str());
    INFO("python said:\n" << file_test::read_bytes(folder_ / "log.txt"));
    REQUIRE(status == 0);
    return true;
  }

  // The script's `file` holds `ours`: dtype, shape and bits (any NaN equal to any NaN).
  void same(const std::string& file, const Tensor& ours) {
    INFO(file);
    const ir::Value expected = detail::value_of(load_npy(folder_ / file), "test");
    const ir::Value actual = detail::value_of(ours, "test");
    CHECK(expected.dtype == actual.dtype);
    CHECK(expected.layout.shape == actual.layout.shape);
    CHECK(bytes_of(expected) == bytes_of(actual));
  }

 private:
  file_test::TempFolder folder_;
};

}  // namespace tensorjit::testing
