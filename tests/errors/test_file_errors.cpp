// Bad model files never crash: each malformed .npy, .npz or .safetensors throws tensorjit::Error
// naming the file and the problem.
#include <doctest/doctest.h>

#include <string>
#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"

namespace tj = tensorjit;
using namespace file_test;

namespace {

// The message load throws for a file holding `bytes`; fails the test when it throws anything else.
template <typename Load> std::string load_error(const TempFolder& folder, const std::string& name,
                                                const std::string& bytes, Load load) {
  const std::string path = folder / name;
  write_bytes(path, bytes);
  try {
    load(path);
  } catch (const tj::InternalError& e) {
    FAIL("an internal error where a user error was expected: " << e.what());
  } catch (const tj::Error& e) {
    const std::string message = e.what();
    CHECK_MESSAGE(message.find(path) != std::string::npos, "the message does not name the file: " << message);
    return message;
  }
  FAIL("no tensorjit::Error was thrown for " << name);
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string npy_error(const TempFolder& folder, const std::string& bytes) {
  return load_error(folder, "bad.npy", bytes, [](const std::string& path) { tj::load_npy(path); });
}

std::string npy_with(const std::string& dict, const std::string& data = "") { return npy_file(dict, 118, data); }

}  // namespace

TEST_CASE("file errors: a missing file names the path") {
  TempFolder folder;
  const std::string path = folder / "missing.npy";
  CHECK(contains(load_error(folder, "missing.npy", "", [](const std::string& file) {
                   std::filesystem::remove(file);
                   tj::load_npy(file);
                 }),
                 "cannot open '" + path + "'"));
  CHECK_THROWS_WITH_AS(tj::save_npy(folder / "no/such/folder.npy", tj::zeros({2})),
                       doctest::Contains("check that the folder exists"), tj::Error);
}

TEST_CASE("npy and npz errors: numpy has no bf16, and saving one says what to do instead") {
  TempFolder folder;
  const tj::Tensor t = tj::zeros({2}).astype(tj::bf16);
  CHECK_THROWS_WITH_AS(tj::save_npy(folder / "t.npy", t), doctest::Contains("numpy has no bf16 dtype; save the tensor as f32"), tj::Error);
  CHECK_THROWS_WITH_AS(tj::save_npz(folder / "t.npz", {{"w", t}}), doctest::Contains("tensor 'w': numpy has no bf16"), tj::Error);
  CHECK(!std::filesystem::exists(folder / "t.npy"));
}

TEST_CASE("npy errors: empty, wrong magic, truncated, bad header, bad dtype, overflow") {
  TempFolder folder;
  const std::string dict_end = "'fortran_order': False, 'shape': (2,), }";
  CHECK(contains(npy_error(folder, ""), "the file is empty"));
  CHECK(contains(npy_error(folder, "PK\x03\x04 not an npy file"), "not a .npy file"));
  CHECK(contains(npy_error(folder, std::string("\x93NUMPY\x01", 7)), "not a .npy file"));
  CHECK(contains(npy_error(folder, std::string("\x93NUMPY\x04\x00\x10\x00", 10)), "version 4.0 is not supported"));
  CHECK(contains(npy_error(folder, std::string("\x93NUMPY\x02\x00\x10\x00", 10)), "truncated"));
  // The header claims 0xffff bytes; the file has 20.
  CHECK(contains(npy_error(folder, std::string("\x93NUMPY\x01\x00\xff\xff", 10) + "{'descr': '<f4'"),
                 "the header is 65535 bytes long but the file has only"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', " + dict_end, "abcd")), "truncated: shape [2]"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4' 'fortran_order': False}")), "malformed .npy header"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'shape': (2,), }")), "lacks"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }")),
                 "expected True or False"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }")),
                 "expected a non-negative integer"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }")),
                 "overflows int64"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")),
                 "overflows int64"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }")),
                 "rank 9"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}")),
                 "unexpected key 'x'"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<f4, " + dict_end)), "malformed .npy header"));
  const std::string complex = npy_error(folder, npy_with("{'descr': '<c8', " + dict_end, "abcdefghabcdefgh"));
  CHECK(contains(complex, "dtype '<c8' is not supported"));
  CHECK(contains(complex, "astype"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': '<U3', " + dict_end)), "dtype '<U3'"));
  CHECK(contains(npy_error(folder, npy_with("{'descr': [('a', '<f4')], " + dict_end)), "structured dtypes"));
}

namespace {

std::string npz_error(const TempFolder& folder, const std::string& bytes) {
  return load_error(folder, "bad.npz", bytes, [](const std::string& path) { tj::load_npz(path); });
}

// A one-member archive ("a.npy", f32[3]) from save_npz, to corrupt field by field.
std::string npz_bytes(const TempFolder& folder, bool compressed) {
  tj::save_npz(folder / "good.npz", {{"a", tj::tensor({1.f, 2.f, 3.f})}}, compressed);
  return read_bytes(folder / "good.npz");
}

// `bytes` with the little-endian `value` written at `at`.
template <typename T> std::string patched(std::string bytes, std::size_t at, T value) {
  return bytes.replace(at, sizeof(T), le<T>(value));
}

}  // namespace

TEST_CASE("npz errors: not a zip, zip64, corrupt directory, bad members") {
  TempFolder folder;
  const std::string stored = npz_bytes(folder, false);
  const std::size_t directory = stored.find("PK\x01\x02");
  const std::size_t end = stored.find("PK\x05\x06");
  REQUIRE(directory != std::string::npos);
  REQUIRE(end != std::string::npos);
  CHECK(contains(npz_error(folder, ""), "the file is empty"));
  CHECK(contains(npz_error(folder, std::string(100, 'x')), "not a zip archive"));
  CHECK(contains(npz_error(folder, patched<std::uint16_t>(stored, end + 10, 0xffff)), "zip64"));
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(stored, end + 16, 0x7ffffff0)),
                 "central directory lies outside the file"));
  CHECK(contains(npz_error(folder, patched<std::uint16_t>(stored, end + 10, 2)), "multi-part"));
  const std::string two_members = patched<std::uint16_t>(patched<std::uint16_t>(stored, end + 10, 2), end + 8, 2);
  CHECK(contains(npz_error(folder, two_members), "central directory entry 1 is malformed"));
  CHECK(contains(npz_error(folder, patched<std::uint16_t>(stored, directory + 10, 12)), "compression method 12"));
  CHECK(contains(npz_error(folder, patched<std::uint16_t>(stored, directory + 8, 1)), "encrypted"));
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(stored, directory + 42, 0x7ffffff0)), "no local header"));
  const std::string past_end = patched<std::uint32_t>(patched<std::uint32_t>(stored, directory + 20, 0x7ffffff0),
                                                      directory + 24, 0x7ffffff0);
  CHECK(contains(npz_error(folder, past_end), "runs past the end of the file"));
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(stored, directory + 24, 7)), "claims 7 uncompressed"));
  std::string renamed = stored;
  renamed.replace(directory + 46, 5, "a.txt");
  CHECK(contains(npz_error(folder, renamed), "member 'a.txt' is not an .npy array"));
  std::string bad_npy = stored;
  bad_npy.replace(bad_npy.find("\x93NUMPY"), 6, "XXXXXX");
  const std::string member = npz_error(folder, bad_npy);
  CHECK(contains(member, "member 'a.npy'"));
  CHECK(contains(member, "not a .npy file"));
}

TEST_CASE("npz errors: corrupt deflated members") {
  TempFolder folder;
  const std::string deflated = npz_bytes(folder, true);
  const std::size_t directory = deflated.find("PK\x01\x02");
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(deflated, directory + 16, 0x12345678)), "CRC-32"));
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(deflated, directory + 24, 0x7ffffff0)), "cannot hold"));
  CHECK(contains(npz_error(folder, patched<std::uint32_t>(deflated, directory + 24, 100)), "corrupt deflated data"));
  std::string garbled = deflated;
  const std::size_t data = 30 + 5;  // the first local header and its name: the deflated stream
  for (std::size_t i = data; i < data + 20; ++i) garbled[i] = static_cast<char>(0xff);
  CHECK(contains(npz_error(folder, garbled), "corrupt"));
}

namespace {

std::string safetensors_error(const TempFolder& folder, const std::string& header, const std::string& data = "") {
  return load_error(folder, "bad.safetensors", le<std::uint64_t>(header.size()) + header + data,
                    [](const std::string& path) { tj::load_safetensors(path); });
}

std::string one_tensor(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return R"({"t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}";
}

}  // namespace

TEST_CASE("safetensors errors: header length, JSON, dtypes, shapes, offsets") {
  TempFolder folder;
  auto raw_error = [&](const std::string& bytes) {
    return load_error(folder, "bad.safetensors", bytes, [](const std::string& path) { tj::load_safetensors(path); });
  };
  CHECK(contains(raw_error(""), "the file is empty"));
  CHECK(contains(raw_error("abc"), "truncated"));
  CHECK(contains(raw_error(le<std::uint64_t>(~std::uint64_t{0}) + "{}"), "header length 18446744073709551615 is more than"));
  CHECK(contains(raw_error(le<std::uint64_t>(100) + "{}"), "header length 100 is more than the 2 bytes"));
  CHECK(contains(safetensors_error(folder, "{\"t\": {"), "not valid JSON"));
  CHECK(contains(safetensors_error(folder, "[1, 2]"), "not an object of tensors"));
  CHECK(contains(safetensors_error(folder, R"({"t": 3})"), "tensor 't': its entry must be an object"));
  const std::string f8 = safetensors_error(folder, one_tensor("F8_E4M3", "[2]", "[0,2]"), "ab");
  CHECK(contains(f8, "tensor 't': dtype F8_E4M3 is not supported"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[-2]", "[0,8]")), "non-negative int64"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[\"2\"]", "[0,8]")), "non-negative int64"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[4294967296, 4294967296]", "[0,8]")), "overflows int64"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[0]")), "not a list of two"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[-8,0]")), "not a list of two"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[0,12]"), std::string(12, 'x')),
                 "do not span the 8 bytes of F32[2]"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[8,0]"), std::string(12, 'x')), "do not span"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[0,8]"), "abcd"), "point past the 4 bytes"));
  CHECK(contains(safetensors_error(folder, one_tensor("F32", "[2]", "[18446744073709551608,0]")), "do not span"));
  const std::string overlap = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})";
  CHECK(contains(safetensors_error(folder, overlap, std::string(8, 'x')), "tensors 'a' and 'b' overlap"));
  CHECK_THROWS_WITH_AS(tj::save_safetensors(folder / "x.safetensors", {{"__metadata__", tj::zeros({1})}}),
                       doctest::Contains("reserved"), tj::Error);
}
