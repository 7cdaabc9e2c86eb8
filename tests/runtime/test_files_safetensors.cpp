// load_safetensors and save_safetensors: exact round trips, aligned data, mapped views, metadata.
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "file_round_trip.hpp"
#include "file_test_support.hpp"

namespace tj = tensorjit;
using namespace file_test;

namespace {

// A safetensors file built by hand: `header` JSON, then `data`.
std::string safetensors_file(const std::string& header, const std::string& data) {
  return le<std::uint64_t>(header.size()) + header + data;
}

}  // namespace

TEST_CASE("safetensors: every dtype and shape round-trips exactly, as views on the mapped file") {
  TempFolder folder;
  std::map<std::string, tj::Tensor> tensors;
  for (const auto& [name, tensor] : sample_tensors(/*with_bf16=*/true)) tensors.emplace(name, tensor);
  const std::string path = folder / "all.safetensors";
  tj::save_safetensors(path, tensors, {{"format", "pt"}, {"note", "made by tensorjit"}});
  const std::string bytes = read_bytes(path);
  std::uint64_t header_length = 0;
  for (int i = 8; i-- > 0;) header_length = header_length << 8 | static_cast<unsigned char>(bytes[i]);
  CHECK((8 + header_length) % 8 == 0);
  CHECK(bytes.find("\"__metadata__\":{\"format\":\"pt\",\"note\":\"made by tensorjit\"}") != std::string::npos);
  // Data in sorted name order: bf16_cube's bytes come first (24 elements of 2 bytes).
  CHECK(bytes.find("\"bf16_cube\":{\"data_offsets\":[0,48]") != std::string::npos);
  const auto loaded = tj::load_safetensors(path);
  REQUIRE(loaded.size() == tensors.size());
  for (const auto& [name, tensor] : tensors) check_same(loaded.at(name), tensor, name);
  // The format packs tensors without gaps, so those after an odd-sized one are misaligned and
  // copied; the first is always a view.
  CHECK(mapped_from(path, loaded.at("bool_cube").data()));
  const std::string weights = folder / "weights.safetensors";
  tj::save_safetensors(weights, {{"a", tj::ones({3, 4}, tj::f64)}, {"b", tj::ones({5}, tj::f32)}});
  const auto aligned = tj::load_safetensors(weights);
  CHECK(mapped_from(weights, aligned.at("a").data()));
  CHECK(mapped_from(weights, aligned.at("b").data()));
}

TEST_CASE("safetensors: U8 and I8 widen to i32; misaligned data is copied") {
  TempFolder folder;
  const std::string path = folder / "bytes.safetensors";
  write_bytes(path, safetensors_file(R"({"u":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},)"
                                     R"("i":{"dtype":"I8","shape":[3],"data_offsets":[3,6]},)"
                                     R"("f":{"dtype":"F32","shape":[1],"data_offsets":[7,11]}})",
                                     std::string("\x00\xc8\xff\x80\xff\x7f_\x00\x00\x80\x3f", 11)));
  const auto loaded = tj::load_safetensors(path);
  CHECK(loaded.at("u").dtype() == tj::i32);
  CHECK(loaded.at("u").to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 200, 255});
  CHECK(loaded.at("i").to_vector<std::int32_t>() == std::vector<std::int32_t>{-128, -1, 127});
  CHECK(loaded.at("f").to_vector<float>() == std::vector<float>{1.0f});
  CHECK(!mapped_from(path, loaded.at("f").data()));
}
