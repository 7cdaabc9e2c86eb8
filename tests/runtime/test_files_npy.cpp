// load_npy and save_npy: exact round trips, the zero-copy rule, and every stored form numpy writes.
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "file_round_trip.hpp"
#include "file_test_support.hpp"

namespace tj = tensorjit;
using namespace file_test;

TEST_CASE("npy: every dtype and shape round-trips exactly, views as their values") {
  TempFolder folder;
  for (const auto& [name, tensor] : sample_tensors()) {
    const std::string path = folder / (name + ".npy");
    tj::save_npy(path, tensor);
    const std::string bytes = read_bytes(path);
    INFO(name);
    // numpy's layout: version 1.0, the data at a multiple of 64 bytes, C order.
    CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t data_offset = 10 + static_cast<unsigned char>(bytes[8]) + 256 * static_cast<unsigned char>(bytes[9]);
    CHECK(data_offset % 64 == 0);
    CHECK(bytes.find("'fortran_order': False") != std::string::npos);
    check_same(tj::load_npy(path), tensor, name);
  }
}

TEST_CASE("npy: a loaded tensor is a view on the mapped file, alive while a graph reads it") {
  TempFolder folder;
  const std::string path = folder / "a.npy";
  tj::save_npy(path, tj::arange(0, 1000, 1, tj::f32));
  tj::Tensor loaded = tj::load_npy(path);
  CHECK(mapped_from(path, loaded.data()));
  tj::Tensor doubled = loaded * 2.0f;  // lazy: reads the mapping when evaluated
  loaded = tj::Tensor();
  std::filesystem::remove(path);
  CHECK(doubled.to_vector<float>()[999] == 1998.0f);
}

TEST_CASE("npy: fortran order loads as a transposed view without a copy") {
  TempFolder folder;
  const std::string path = folder / "f.npy";
  std::string data;
  for (float v : {1.f, 4.f, 2.f, 5.f, 3.f, 6.f}) data += std::string(reinterpret_cast<const char*>(&v), 4);
  write_bytes(path, npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 118, data));
  tj::Tensor loaded = tj::load_npy(path);
  CHECK(loaded.shape() == tj::Shape{2, 3});
  CHECK(loaded.strides() == tj::Shape{1, 2});
  CHECK(mapped_from(path, loaded.data()));
  CHECK(loaded.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("npy: misaligned, big-endian and one-byte data load as converted copies") {
  TempFolder folder;
  SUBCASE("misaligned f64 is copied") {
    const std::string path = folder / "odd.npy";
    // 10 + 71 = 81: the data starts at an odd offset.
    write_bytes(path, npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 71,
                               le<std::int64_t>(0x3ff0000000000000) + le<std::int64_t>(0xc000000000000000)));
    tj::Tensor loaded = tj::load_npy(path);
    CHECK(!mapped_from(path, loaded.data()));
    CHECK(loaded.to_vector<double>() == std::vector<double>{1.0, -2.0});
  }
  SUBCASE("big-endian i4 and i8 are swapped") {
    const std::string path = folder / "big.npy";
    write_bytes(path, npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", 118,
                               std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)));
    CHECK(tj::load_npy(path).to_vector<std::int32_t>() == std::vector<std::int32_t>{258, -2});
    write_bytes(path, npy_file("{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", 118,
                               std::string("\x00\x00\x00\x01\x00\x00\x00\x00", 8)));
    CHECK(tj::load_npy(path).to_vector<std::int64_t>() == std::vector<std::int64_t>{std::int64_t{1} << 32});
  }
  SUBCASE("u1 and i1 widen to i32") {
    const std::string path = folder / "bytes.npy";
    write_bytes(path, npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", 118, std::string("\x00\xc8\xff", 3)));
    tj::Tensor unsigned_bytes = tj::load_npy(path);
    CHECK(unsigned_bytes.dtype() == tj::i32);
    CHECK(unsigned_bytes.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 200, 255});
    write_bytes(path, npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", 118, "\x80\xff\x7f"));
    CHECK(tj::load_npy(path).to_vector<std::int32_t>() == std::vector<std::int32_t>{-128, -1, 127});
  }
  SUBCASE("bool bytes other than 0 and 1 read as true") {
    const std::string path = folder / "bool.npy";
    write_bytes(path, npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 118, std::string("\x00\x02\x01", 3)));
    CHECK(tj::load_npy(path).to_vector<bool>() == std::vector<bool>{false, true, true});
  }
}

TEST_CASE("npy: version 2.0 and 3.0 headers, and Python 2's long extents") {
  TempFolder folder;
  const std::string path = folder / "v2.npy";
  for (char version : {'\x02', '\x03'}) {
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2L,), }";
    header.resize(128 - 12 - 1, ' ');
    write_bytes(path, std::string("\x93NUMPY", 6) + version + '\0' + le<std::uint32_t>(116) + header + "\n" +
                          le<std::int32_t>(7) + le<std::int32_t>(-7));
    CHECK(tj::load_npy(path).to_vector<std::int32_t>() == std::vector<std::int32_t>{7, -7});
  }
}
