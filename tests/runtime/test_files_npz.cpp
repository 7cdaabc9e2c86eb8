// load_npz and save_npz: exact round trips stored and deflated, stored members mapped.
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "file_round_trip.hpp"
#include "file_test_support.hpp"

namespace tj = tensorjit;
using namespace file_test;

TEST_CASE("npz: every dtype and shape round-trips exactly, stored and deflated") {
  TempFolder folder;
  std::map<std::string, tj::Tensor> tensors;
  for (const auto& [name, tensor] : sample_tensors()) tensors.emplace(name, tensor);
  for (bool compressed : {false, true}) {
    INFO("compressed " << compressed);
    const std::string path = folder / (compressed ? "deflated.npz" : "stored.npz");
    tj::save_npz(path, tensors, compressed);
    const auto loaded = tj::load_npz(path);
    REQUIRE(loaded.size() == tensors.size());
    for (const auto& [name, tensor] : tensors) check_same(loaded.at(name), tensor, name);
    // Stored members are views on the mapped archive (their data aligned by save_npz); deflated
    // ones are inflated into buffers of their own.
    CHECK(mapped_from(path, loaded.at("f32_cube").data()) == !compressed);
    CHECK(mapped_from(path, loaded.at("f64_vector").data()) == !compressed);
  }
}

TEST_CASE("npz: an empty archive and the deflated size is smaller for repetitive data") {
  TempFolder folder;
  tj::save_npz(folder / "none.npz", {});
  CHECK(tj::load_npz(folder / "none.npz").empty());
  const std::map<std::string, tj::Tensor> zeros{{"z", tj::zeros({4096})}};
  tj::save_npz(folder / "stored.npz", zeros);
  tj::save_npz(folder / "deflated.npz", zeros, true);
  CHECK(read_bytes(folder / "deflated.npz").size() * 20 < read_bytes(folder / "stored.npz").size());
}
