// A comparison with NumPy and PyTorch (peer_python.hpp): a script run in a fresh folder, next to
// the inputs saved there as <name>.npy, writes .npy files that are then compared with tensors bit
// for bit. Without a python that imports numpy and torch the case says SKIPPED and checks nothing.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "jit_oracle.hpp"
#include "peer_python.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::testing {

class PeerCheck {
 public:
  // Saves `inputs`, runs `script`; false, with a SKIPPED message, when the peers are absent.
  bool run(const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& script) {
    if (!peer_python::imports("numpy, torch")) {
      MESSAGE("SKIPPED: " << peer_python::path() << " cannot import numpy and torch, so the peer checks did not run");
      return false;
    }
    for (const auto& [name, tensor] : inputs) save_npy(folder_ / (name + ".npy"), tensor);
    file_test::write_bytes(folder_ / "peers.py", script);
    const int status = peer_python::run(folder_.path(), "peers.py");
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
