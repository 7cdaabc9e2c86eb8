#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

TEST_SUITE("runtime") {

TEST_CASE("tensor from a shape and flat values") {
  tj::Tensor a = tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(a.shape() == tj::Shape{2, 3});
  CHECK(a.dtype() == tj::f32);
  CHECK(a.rank() == 2);
  CHECK(a.size() == 6);
  CHECK(a.strides() == tj::Shape{3, 1});
  CHECK(a.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(a.at<float>({1, 2}) == 6);
  CHECK(a.at<float>({-1, -3}) == 4);
  CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
}

TEST_CASE("nested lists give their shape; ragged lists throw") {
  auto b = tj::tensor({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  CHECK(b.shape() == tj::Shape{2, 3});
  CHECK(b.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto c = tj::tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}});
  CHECK(c.shape() == tj::Shape{2, 2, 2});
  CHECK(c.dtype() == tj::i32);
  auto d = tj::tensor({{{{1.0}}, {{2.0}}}});
  CHECK(d.shape() == tj::Shape{1, 2, 1, 1});
  CHECK(d.dtype() == tj::f64);
  CHECK_THROWS_AS(tj::tensor({{1.f, 2.f}, {3.f}}), tj::Error);
  CHECK_THROWS_AS(tj::tensor<float>({2, 2}, {1, 2, 3}), tj::Error);
}

TEST_CASE("zeros, ones, full, arange, linspace, scalar") {
  CHECK(tj::zeros({2, 2}).to_vector<float>() == std::vector<float>{0, 0, 0, 0});
  CHECK(tj::ones({3}, tj::f64).to_vector<double>() == std::vector<double>{1, 1, 1});
  CHECK(tj::ones({3}, tj::f64).dtype() == tj::f64);
  CHECK(tj::full({2}, 1.5f).to_vector<float>() == std::vector<float>{1.5f, 1.5f});
  CHECK(tj::full({2}, 7).dtype() == tj::i32);
  auto r = tj::arange(0, 6, 1, tj::i64);
  CHECK(r.dtype() == tj::i64);
  CHECK(r.to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(tj::arange(5, 0, -2).to_vector<float>() == std::vector<float>{5, 3, 1});
  CHECK(tj::arange(0, 0, 1).size() == 0);
  CHECK(tj::linspace(0.0, 1.0, 5).to_vector<float>() == std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1});
  CHECK(tj::scalar(2.0f).rank() == 0);
  CHECK(tj::scalar(2.0f).item<float>() == 2.0f);
  CHECK(tj::zeros({0, 3}).size() == 0);
  CHECK(tj::zeros({0, 3}).to_vector<float>().empty());
}

// numpy's linspace, element for element (issue 27, finding 4): y = i * step + start in f64 with
// step = (stop - start) / (num - 1), (i / (num - 1)) * (stop - start) where that step underflows
// to 0, the last element stop exactly, integer dtypes floored, then converted to the dtype. The
// hard-coded values are that formula evaluated with Python floats (IEEE doubles, numpy's
// arithmetic here).
TEST_CASE("linspace is numpy's element for element, ending at stop exactly") {
  auto values = tj::linspace(-1, 0.3, 129, tj::f64).to_vector<double>();
  REQUIRE(values.size() == 129);
  CHECK(values[0] == -1.0);
  CHECK(values[1] == -0.98984375);
  CHECK(values[64] == -0.35);
  CHECK(values[127] == 0.28984374999999996);
  CHECK(values[128] == 0.3);  // start + 128 * step is 0.30000000000000004
  for (auto [start, stop, num] : {std::tuple{-1.0, 0.3, 129}, {0.0, 1.0, 7}, {2.5, -7.1, 1000},
                                  {1e-3, 1e3, 33}, {-0.0, 5.0, 2}}) {
    CAPTURE(start);
    CAPTURE(stop);
    auto got = tj::linspace(start, stop, num, tj::f64).to_vector<double>();
    auto got32 = tj::linspace(start, stop, num, tj::f32).to_vector<float>();
    const double step = (stop - start) / (num - 1);
    for (int i = 0; i < num; ++i) {
      const double expected = i == num - 1 ? stop : i * step + start;
      CHECK(got[static_cast<std::size_t>(i)] == expected);
      CHECK(got32[static_cast<std::size_t>(i)] == static_cast<float>(expected));
    }
  }
  CHECK(tj::linspace(-1, 0.3, 129, tj::f32).to_vector<float>()[127] == 0.28984373807907104f);
  // One value is start; none is empty.
  CHECK(tj::linspace(5, 7, 1, tj::f64).to_vector<double>() == std::vector<double>{5});
  CHECK(tj::linspace(5, 7, 0, tj::f64).size() == 0);
  // A step that underflows to 0 (numpy's gh-5437): (i / 3) * 4.9e-324 rounds 2/3 of the smallest
  // subnormal up, where i * 0 would give 0.
  const double tiny = std::numeric_limits<double>::denorm_min();
  CHECK(tj::linspace(0, tiny, 4, tj::f64).to_vector<double>() == std::vector<double>{0, 0, tiny, tiny});
  // Integer dtypes are floored: -0.5 gives -1 where a conversion would give 0.
  CHECK(tj::linspace(-1, 1, 5, tj::i32).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{-1, -1, 0, 0, 1});
  CHECK(tj::linspace(0, 10, 4, tj::i64).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 3, 6, 10});
  CHECK(tj::linspace(-3, 3, 4, tj::boolean).to_vector<bool>() == std::vector<bool>{true, true, true, true});
  CHECK_THROWS_AS(tj::linspace(0, INFINITY, 3), tj::Error);
}

// numpy's integer arange (issue 27, finding 5): the count ceil((stop - start) / step) from the
// arguments, the first two values truncated to integers, their difference the step of the rest
// (numpy's ctors.c: setitem of start and start + step, then the dtype's fill). PyTorch agrees
// where start is an integer; np.arange(0.5, 5, 1.5, dtype=np.int32) is [0, 2, 4] where PyTorch's
// is [0, 1, 2] (docs/numpy_differences.md).
TEST_CASE("integer arange steps by the difference of its first two values, as numpy") {
  using I32 = std::vector<std::int32_t>;
  using I64 = std::vector<std::int64_t>;
  CHECK(tj::arange(0, 5, 1.5, tj::i32).to_vector<std::int32_t>() == I32{0, 1, 2, 3});
  CHECK(tj::arange(0.5, 5, 1.5, tj::i32).to_vector<std::int32_t>() == I32{0, 2, 4});
  CHECK(tj::arange(3, -3, -1.5, tj::i64).to_vector<std::int64_t>() == I64{3, 1, -1, -3});
  CHECK(tj::arange(-2.5, 2, 1, tj::i32).to_vector<std::int32_t>() == I32{-2, -1, 0, 1, 2});
  CHECK(tj::arange(0, 5, 0.5, tj::i32).to_vector<std::int32_t>() == I32(10, 0));
  CHECK(tj::arange(0, 5, 1.5, tj::f64).to_vector<double>() == std::vector<double>{0, 1.5, 3, 4.5});
}

TEST_CASE("printing follows numpy's str()") {
  CHECK(tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}).to_string() == "[[1. 2. 3.]\n [4. 5. 6.]]");
  CHECK(tj::tensor({1.5f, 2.25f}).to_string() == "[1.5  2.25]");
  CHECK(tj::tensor({1, -20, 300}).to_string() == "[  1 -20 300]");
  CHECK(tj::tensor({true, false}).to_string() == "[ True False]");
  CHECK(tj::scalar(3.5).to_string() == "3.5");
  CHECK(tj::tensor({NAN, INFINITY, -1.0f}).to_string() == "[nan inf -1.]");
  CHECK(tj::tensor({1e-5, 1.0}).to_string() == "[1.e-05 1.e+00]");
  CHECK(tj::zeros({2, 0}).to_string() == "[]");
  CHECK(tj::tensor({0.1, 0.25, 100.5}).to_string() == "[1.000e-01 2.500e-01 1.005e+02]");
  CHECK(tj::tensor({1.123456789, 2.0}).to_string() == "[1.12345679 2.        ]");
  CHECK(tj::tensor({1.1f, 2.0f}).to_string() == "[1.1 2. ]");
  auto cube = tj::arange(0, 8, 1, tj::i32).reshape({2, 2, 2});
  CHECK(cube.to_string() == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  std::ostringstream out;
  out << tj::tensor({1, 2});
  CHECK(out.str() == "[1 2]");
}

TEST_CASE("large tensors and views print a summary") {
  auto big = tj::arange(0, 2000, 1, tj::i32);
  CHECK(big.to_string() == "[   0    1    2 ... 1997 1998 1999]");
  auto grid = tj::arange(0, 40000, 1, tj::i32).reshape({200, 200}).transpose();
  CHECK(grid.to_string() ==
        "[[    0   200   400 ... 39400 39600 39800]\n"
        " [    1   201   401 ... 39401 39601 39801]\n"
        " [    2   202   402 ... 39402 39602 39802]\n"
        " ...\n"
        " [  197   397   597 ... 39597 39797 39997]\n"
        " [  198   398   598 ... 39598 39798 39998]\n"
        " [  199   399   599 ... 39599 39799 39999]]");
}

TEST_CASE("printing a huge tensor reads only the elements it shows") {
  // 2^40 f32 elements (4 TiB) over one float through zero strides: copying every element to print
  // the summary threw std::bad_alloc. numpy prints np.broadcast_to(np.float32(1.5), (2**40,)) so.
  float value = 1.5f;
  auto line = tj::from_blob(&value, {std::int64_t{1} << 40}, {0}, tj::f32);
  CHECK(line.to_string() == "[1.5 1.5 1.5 ... 1.5 1.5 1.5]");
  auto plane = tj::from_blob(&value, {std::int64_t{1} << 20, std::int64_t{1} << 20}, {0, 0}, tj::f32);
  const std::string row = " [1.5 1.5 1.5 ... 1.5 1.5 1.5]";
  CHECK(plane.to_string() ==
        "[" + row.substr(1) + "\n" + row + "\n" + row + "\n ...\n" + row + "\n" + row + "\n" + row + "]");
  std::int64_t count = 7;
  auto ints = tj::from_blob(&count, {std::int64_t{1} << 40}, {0}, tj::i64);
  CHECK(ints.to_string() == "[7 7 7 ... 7 7 7]");
}

TEST_CASE("long rows wrap at 75 columns as numpy does") {
  auto row = tj::arange(0, 30, 1, tj::i32);
  CHECK(row.to_string() ==
        "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"
        " 24 25 26 27 28 29]");
}

}  // TEST_SUITE
