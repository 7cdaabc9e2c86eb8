// Every user mistake throws tensorjit::Error at the line that made it, with a message that names
// the op, the shapes and dtypes, and leaves existing tensors valid.
#include <doctest/doctest.h>

#include <cmath>
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

// The message begins with `prefix`: the function the user called, then what is wrong.
bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }
#define CHECK_PREFIX(message, prefix) CHECK_MESSAGE(starts_with(message, prefix), message)

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
  CHECK_PREFIX(m, "sum: axis 2 is out of range for shape [2, 3]");
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
  CHECK_PREFIX(m, "argmax: axis 5 is out of range for shape [2, 3]");
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
  CHECK_PREFIX(m, "max: cannot reduce the empty axis 0 of f32[0]");
}

TEST_CASE("from_blob checks its arguments") {
  float data[4] = {};
  auto m = message_of([&] { return tj::from_blob(data, {2, 2}, {2}, tj::f32); });
  CHECK(contains(m, "from_blob"));
  m = message_of([&] { return tj::from_blob(reinterpret_cast<char*>(data) + 1, {1}, {}, tj::f32); });
  CHECK(contains(m, "aligned"));
}

// A function built from several ops checks its arguments itself: its errors name it, never one of
// the ops inside it (softmax's axis error used to come from reduce_max).
TEST_CASE("softmax and log_softmax name themselves") {
  auto x = tj::zeros({2, 3});
  CHECK_PREFIX(message_of([&] { return tj::softmax(x, 2); }),
               "softmax: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::softmax(tj::tensor<std::int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}), -3); }),
               "softmax: axis -3 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::softmax(tj::scalar(1.f)); }),
               "softmax: axis -1 is out of range for shape []");
  CHECK_PREFIX(message_of([&] { return tj::log_softmax(x, 2); }),
               "log_softmax: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::softmax(tj::Tensor()); }), "softmax: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return tj::log_softmax(tj::Tensor()); }), "log_softmax: the tensor is empty");
  // Over an empty axis there is nothing to normalise: an empty result, not max's error.
  CHECK(tj::softmax(tj::zeros({2, 0})).shape() == tj::Shape{2, 0});
  CHECK(tj::log_softmax(tj::zeros({2, 0}, tj::i32), 1).dtype() == tj::f32);
}

TEST_CASE("layernorm and rmsnorm check x, gamma, beta and eps") {
  auto x = tj::zeros({2, 3});
  auto w = tj::ones({3});
  CHECK_PREFIX(message_of([&] { return tj::layernorm(x, tj::ones({4}), w); }),
               "layernorm: gamma f32[4] must be 1-D with the last extent of x f32[2, 3], [3]");
  CHECK_PREFIX(message_of([&] { return tj::layernorm(x, w, tj::ones({1, 3})); }),
               "layernorm: beta f32[1, 3] must be 1-D with the last extent of x f32[2, 3], [3]");
  CHECK_PREFIX(message_of([&] { return tj::layernorm(tj::scalar(1.f), w, w); }),
               "layernorm: x must have rank >= 1");
  CHECK_PREFIX(message_of([&] { return tj::layernorm(x, w, w, -1e-5); }),
               "layernorm: eps must be finite and >= 0, got -1e-05");
  CHECK_PREFIX(message_of([&] { return tj::layernorm(x, w, w, std::nan("")); }),
               "layernorm: eps must be finite and >= 0, got nan");
  CHECK_PREFIX(message_of([&] { return tj::layernorm(x, tj::Tensor(), w); }), "layernorm: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return tj::rmsnorm(x, tj::ones({4})); }),
               "rmsnorm: gamma f32[4] must be 1-D with the last extent of x f32[2, 3], [3]");
  CHECK_PREFIX(message_of([&] { return tj::rmsnorm(tj::scalar(1.f), w); }), "rmsnorm: x must have rank >= 1");
  CHECK_PREFIX(message_of([&] { return tj::rmsnorm(x, w, INFINITY); }),
               "rmsnorm: eps must be finite and >= 0, got inf");
  CHECK_PREFIX(message_of([&] { return tj::rmsnorm(tj::Tensor(), w); }), "rmsnorm: the tensor is empty");
}

TEST_CASE("reductions name the method called") {
  auto x = tj::zeros({2, 3});
  auto ints = tj::tensor<std::int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_PREFIX(message_of([&] { return x.mean({2}); }), "mean: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return ints.mean({-3}); }), "mean: axis -3 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return x.mean({0, -2}); }), "mean: axes [0, -2] repeat an axis of shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::Tensor().mean(); }), "mean: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return x.prod({2}); }), "prod: axis 2 is out of range");
  CHECK_PREFIX(message_of([&] { return x.min({-3}); }), "min: axis -3 is out of range");
  CHECK_PREFIX(message_of([&] { return x.any({2}); }), "any: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return x.all({2}); }), "all: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::Tensor().any(); }), "any: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return tj::zeros({2, 0}).argmax(); }), "argmax: f32[2, 0] has no elements");
  CHECK_PREFIX(message_of([&] { return tj::zeros({2, 0}).argmin(); }), "argmin: f32[2, 0] has no elements");
  CHECK_PREFIX(message_of([&] { return tj::zeros({2, 0}).min({1}); }),
               "min: cannot reduce the empty axis 1 of f32[2, 0]");
  CHECK_PREFIX(message_of([&] { return tj::zeros({2, 0}).argmin(1); }),
               "argmin: cannot reduce the empty axis 1 of f32[2, 0]");
}

TEST_CASE("views built from other views name themselves") {
  auto x = tj::zeros({2, 3});
  CHECK_PREFIX(message_of([&] { return x.flip(2); }), "flip: axis 2 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return x.transpose(0, 2); }), "transpose: axis 2 is out of range");
  CHECK_PREFIX(message_of([&] { return x.squeeze(0); }), "squeeze: axis 0 of f32[2, 3] has extent 2, not 1");
  CHECK_PREFIX(message_of([&] { return x.unsqueeze(4); }), "unsqueeze: axis 4 is out of range");
  for (auto [name, call] : std::initializer_list<std::pair<const char*, tj::Tensor (*)(const tj::Tensor&)>>{
           {"flip", [](const tj::Tensor& t) { return t.flip(0); }},
           {"transpose", [](const tj::Tensor& t) { return t.transpose(); }},
           {"squeeze", [](const tj::Tensor& t) { return t.squeeze(); }},
           {"unsqueeze", [](const tj::Tensor& t) { return t.unsqueeze(0); }},
           {"zeros_like", [](const tj::Tensor& t) { return tj::zeros_like(t); }},
           {"ones_like", [](const tj::Tensor& t) { return tj::ones_like(t); }},
           {"matmul", [](const tj::Tensor& t) { return tj::matmul(t, t); }},
           {"bitwise_not", [](const tj::Tensor& t) { return ~t; }},
           {"add", [](const tj::Tensor& t) { return t + 1.f; }},
           {"div", [](const tj::Tensor& t) { return 2 / t; }},
           {"clamp", [](const tj::Tensor& t) { return tj::clamp(t, 0.f, 1.f); }}}) {
    CAPTURE(name);
    CHECK_PREFIX(message_of([&] { return call(tj::Tensor()); }), std::string(name) + ": the tensor is empty");
  }
}

TEST_CASE("elementwise functions built from other ops name themselves") {
  auto x = tj::zeros({2, 3});
  auto y = tj::zeros({4});
  CHECK_PREFIX(message_of([&] { return tj::clamp(x, y, tj::ones({1})); }),
               "clamp: cannot broadcast f32[2, 3] and f32[4] and f32[1] together");
  CHECK_PREFIX(message_of([&] { return tj::clamp(tj::tensor({true}), tj::tensor({false}), tj::tensor({true})); }),
               "clamp: not defined for bool tensors");
  CHECK_PREFIX(message_of([&] { return tj::remainder(x, y); }), "remainder: cannot broadcast f32[2, 3] and f32[4]");
  CHECK_PREFIX(message_of([&] { return tj::remainder(tj::tensor({true}), tj::tensor({true})); }),
               "remainder: arithmetic on two bool tensors");
  auto i = tj::zeros({2, 3}, tj::i32);
  CHECK_PREFIX(message_of([&] { return tj::floor_divide(i, tj::zeros({4}, tj::i32)); }),
               "floor_divide: cannot broadcast i32[2, 3] and i32[4]");
  CHECK_PREFIX(message_of([&] { return tj::floor_divide(x, x); }), "floor_divide: needs integer tensors");
  auto flags = tj::zeros({2, 3}, tj::boolean);
  auto other = tj::zeros({4}, tj::boolean);
  CHECK_PREFIX(message_of([&] { return flags ^ other; }), "bitwise_xor: cannot broadcast bool[2, 3] and bool[4]");
  CHECK_PREFIX(message_of([&] { return flags & other; }), "bitwise_and: cannot broadcast bool[2, 3] and bool[4]");
  CHECK_PREFIX(message_of([&] { return flags | other; }), "bitwise_or: cannot broadcast bool[2, 3] and bool[4]");
  CHECK_PREFIX(message_of([&] { return ~x; }), "bitwise_not: needs an integer or bool tensor, got f32[2, 3]");
}

TEST_CASE("joining names concat, stack, split or pad, and the shapes") {
  auto a = tj::zeros({2, 3});
  auto b = tj::zeros({3, 3}, tj::i32);
  CHECK_PREFIX(message_of([&] { return tj::concat({a, b}, 1); }),
               "concat: tensor 1 of (f32[2, 3], i32[3, 3]) must have the rank and the extents of tensor 0 but along axis 1");
  CHECK_PREFIX(message_of([&] { return tj::concat({tj::scalar(1.0f)}); }), "concat: tensor 0 of (f32[]) is 0-d");
  CHECK_PREFIX(message_of([&] { return tj::concat({a}, -3); }), "concat: axis -3 is out of range for shape [2, 3]");
  CHECK_PREFIX(message_of([&] { return tj::stack({a, b}); }), "stack: tensor 1 of (f32[2, 3], i32[3, 3]) must have the shape");
  CHECK_PREFIX(message_of([&] { return tj::split(a, {1, 1}, 1); }), "split: sizes [1, 1] add up to 2, but axis 1 of f32[2, 3] has 3");
  CHECK_PREFIX(message_of([&] { return tj::pad(a, {{0, -1}}); }), "pad: the widths (0, -1) of f32[2, 3] must not be negative");
  CHECK(a.to_vector<float>().size() == 6);  // still valid after the throws
}

TEST_CASE("reading values names the accessor") {
  tj::Tensor empty;
  CHECK_PREFIX(message_of([&] { return empty.item<float>(); }), "item: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return empty.to_vector<float>(); }), "to_vector: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return empty.at<float>({0}); }), "at: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return empty.to_string(); }), "to_string: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return empty.data(); }), "data: the tensor is empty");
  CHECK_PREFIX(message_of([&] { return empty.rank(); }), "rank: the tensor is empty");
}

}  // TEST_SUITE
