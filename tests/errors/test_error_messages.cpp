// Every user mistake throws tensorjit::Error at the line that made it, with a message that names
// the op, the shapes and dtypes, and leaves existing tensors valid.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <tensorjit/tensorjit.hpp>
#include <utility>
#include <vector>

namespace tj = tensorjit;

namespace {

// The message of the Error `make` throws; fails the test when it throws nothing or something else.
template <typename F> std::string message_of(F&& make) {
  try {
    make();
  } catch (const tj::InternalError& e) {
    FAIL("an internal error where a user error was expected: " << e.what());
  } catch (const tj::Error& e) {
    return e.what();
  }
  FAIL("no tensorjit::Error was thrown");
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("errors") {

TEST_CASE("incompatible broadcast names both operands") {
  auto a = tj::zeros({2, 3});
  auto b = tj::zeros({4});
  auto m = message_of([&] { return a + b; });
  CHECK(contains(m, "add"));
  CHECK(contains(m, "f32[2, 3]"));
  CHECK(contains(m, "f32[4]"));
  CHECK(contains(m, "broadcast"));
  CHECK(a.to_vector<float>().size() == 6);  // still valid after the throw
}

TEST_CASE("bad axes, permutations and reshapes") {
  auto a = tj::zeros({2, 3}, tj::f64);
  auto m = message_of([&] { return a.sum({2}); });
  CHECK(contains(m, "reduce_sum"));
  CHECK(contains(m, "axis 2"));
  CHECK(contains(m, "[2, 3]"));
  m = message_of([&] { return a.permute({0, 0}); });
  CHECK(contains(m, "permute"));
  CHECK(contains(m, "f64[2, 3]"));
  m = message_of([&] { return a.reshape({4, 2}); });
  CHECK(contains(m, "reshape"));
  CHECK(contains(m, "[4, 2]"));
  CHECK(contains(m, "6 elements"));
  m = message_of([&] { return a.slice(0, 0, 1, 0); });
  CHECK(contains(m, "step must not be zero"));
  m = message_of([&] { return a.argmax(5); });
  CHECK(contains(m, "argmax"));
}

TEST_CASE("rank over 8 and shape overflow") {
  auto m = message_of([] { return tj::zeros({1, 1, 1, 1, 1, 1, 1, 1, 1}); });
  CHECK(contains(m, "rank 9"));
  m = message_of([] { return tj::zeros({1LL << 40, 1LL << 40}); });
  CHECK(contains(m, "int64"));
  m = message_of([] { return tj::zeros({-1}); });
  CHECK(contains(m, "negative"));
}

TEST_CASE("a matmul whose result overflows int64 names the op and the shapes") {
  // Each operand is a broadcast of one value; their [2^32, 2^32] product has 2^64 elements.
  const std::int64_t big = std::int64_t{1} << 32;
  auto a = tj::zeros({1, 1}).expand({big, 3});
  auto b = tj::zeros({1, 1}).expand({3, big});
  auto m = message_of([&] { return tj::matmul(a, b); });
  CHECK(contains(m, "matmul"));
  CHECK(contains(m, "f32[4294967296, 4294967296]"));
  CHECK(contains(m, "f32[4294967296, 3]"));
  CHECK(contains(m, "int64"));
  CHECK(contains(m, "make the shapes smaller"));
}

TEST_CASE("a tensor too large to allocate says so, in its own terms") {
  // 2^62 f32 elements are 2^64 bytes: the byte count once wrapped to 0, and the message spoke of
  // strides and an offset the user never passed.
  auto m = message_of([] { return tj::zeros({1LL << 62}).eval(); });
  CAPTURE(m);
  CHECK(contains(m, "zeros"));
  CHECK(contains(m, "f32[4611686018427387904]"));
  CHECK(contains(m, "too large"));
  CHECK(!contains(m, "strides"));
  m = message_of([] { return (tj::ones({1LL << 61}, tj::f64) + 1.0).eval(); });
  CHECK(contains(m, "f64[2305843009213693952]"));
  CHECK(contains(m, "too large"));
}

TEST_CASE("dtype mistakes say what to do") {
  auto m = message_of([] { return tj::tensor({true}) + tj::tensor({false}); });
  CHECK(contains(m, "bool"));
  CHECK(contains(m, "astype"));
  m = message_of([] { return tj::where(tj::tensor({1}), tj::tensor({1}), tj::tensor({2})); });
  CHECK(contains(m, "where"));
  CHECK(contains(m, "bool"));
  m = message_of([] { return tj::tensor({1.f}) << tj::tensor({1.f}); });
  CHECK(contains(m, "left_shift"));
  CHECK(contains(m, "f32[1]"));
  m = message_of([] { return tj::matmul(tj::zeros({2, 3}), tj::zeros({2, 3})); });
  CHECK(contains(m, "matmul"));
  CHECK(contains(m, "f32[2, 3] @ f32[2, 3]"));
}

TEST_CASE("a DType outside the enum is rejected by every entry that takes one") {
  // Any byte converts to the uint8_t enum; an unnamed value once divided by its item size of 0.
  const auto bad = static_cast<tj::DType>(7);
  float data[4] = {};
  auto x = tj::zeros({2});
  const std::vector<std::pair<std::string, std::function<tj::Tensor()>>> entries = {
      {"zeros", [&] { return tj::zeros({2}, bad); }},
      {"ones", [&] { return tj::ones({2}, bad); }},
      {"full", [&] { return tj::full({2}, 1.0, bad); }},
      {"arange", [&] { return tj::arange(0.0, 4.0, 1.0, bad); }},
      {"arange", [&] { return tj::arange(std::int64_t{4}, bad); }},
      {"linspace", [&] { return tj::linspace(0.0, 1.0, 3, bad); }},
      {"from_blob", [&] { return tj::from_blob(data, {4}, {}, bad); }},
      {"astype", [&] { return x.astype(bad); }},
  };
  for (const auto& [op, make] : entries) {
    auto m = message_of(make);
    CAPTURE(m);
    CHECK(contains(m, op + ": DType(7) is not a dtype"));
    CHECK(contains(m, "f32, f64, i32, i64 or boolean"));
  }
}

TEST_CASE("reading values out of range") {
  auto a = tj::zeros({2, 3});
  auto m = message_of([&] { return a.at<float>({2, 0}); });
  CHECK(contains(m, "index 2"));
  m = message_of([&] { return a.item<float>(); });
  CHECK(contains(m, "one element"));
  m = message_of([] { return tj::zeros({0}).max().item<float>(); });
  CHECK(contains(m, "empty"));
}

TEST_CASE("from_blob checks its arguments") {
  float data[4] = {};
  auto m = message_of([&] { return tj::from_blob(data, {2, 2}, {2}, tj::f32); });
  CHECK(contains(m, "from_blob"));
  m = message_of([&] { return tj::from_blob(reinterpret_cast<char*>(data) + 1, {1}, {}, tj::f32); });
  CHECK(contains(m, "aligned"));
}

}  // TEST_SUITE
