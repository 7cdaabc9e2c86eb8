// Node::make's checks that hold for every op: the result's element count, and its size in bytes,
// fit in int64.
#include <doctest/doctest.h>

#include <string>
#include <tensorjit/error.hpp>
#include <tensorjit/ir/node.hpp>

using namespace tensorjit::ir;

namespace {

constexpr std::int64_t kTwoTo32 = std::int64_t{1} << 32;

// A one-element f32 input expanded to `shape`: any size, one float of storage.
NodePtr broadcast_one(const Shape& shape) {
  auto one = make_input(Buffer::allocate(4), tensorjit::DType::f32, Layout::contiguous(Shape(shape.size(), 1)));
  return make_expand(one, shape);
}

std::string message_of_make(Op op, std::vector<NodePtr> inputs, Attrs attrs = {}) {
  try {
    Node::make(op, std::move(inputs), std::move(attrs));
  } catch (const tensorjit::Error& e) {
    return e.what();
  }
  FAIL("Node::make accepted a result whose size overflows int64");
  return {};
}

}  // namespace

TEST_CASE("Node::make: a matmul whose result has more elements than int64 holds is rejected") {
  // [2^32, 3] @ [3, 2^32] has 2^64 elements; numel() once wrapped to 0.
  auto a = broadcast_one({kTwoTo32, 3});
  auto b = broadcast_one({3, kTwoTo32});
  const std::string m = message_of_make(Op::matmul, {a, b});
  CHECK(m.find("matmul") != std::string::npos);
  CHECK(m.find("f32[4294967296, 4294967296]") != std::string::npos);
  CHECK(m.find("(f32[4294967296, 3], f32[3, 4294967296])") != std::string::npos);
  CHECK(m.find("more elements than fit in int64") != std::string::npos);
  // A large result that fits is accepted: (2^31 - 1) * 2^30 elements of 4 bytes < 2^63 bytes.
  auto c = Node::make(Op::matmul, {broadcast_one({kTwoTo32 / 2 - 1, 3}), broadcast_one({3, kTwoTo32 / 4})});
  CHECK(c->numel() == (kTwoTo32 / 2 - 1) * (kTwoTo32 / 4));
}

TEST_CASE("Node::make: a batched matmul overflowing only through its batch is rejected") {
  // [2^30, 2^30, 1] @ [2^30, 1, 16]: each operand fits, the [2^30, 2^30, 16] result does not.
  auto a = broadcast_one({kTwoTo32 / 4, kTwoTo32 / 4, 1});
  auto b = broadcast_one({kTwoTo32 / 4, 1, 16});
  CHECK_THROWS_AS(Node::make(Op::matmul, {a, b}), tensorjit::Error);
}

TEST_CASE("Node::make: a result whose bytes overflow int64 is too large to allocate, for any op") {
  // 2^62 f32 elements fit in int64; their 2^64 bytes once wrapped to an allocation of 0.
  const Shape huge{std::int64_t{1} << 62};
  std::string m = message_of_make(Op::expand, {broadcast_one({1})}, ShapeAttr{huge});
  CHECK(m.find("expand: the result f32[4611686018427387904] of (f32[1])") != std::string::npos);
  CHECK(m.find("too large to allocate: 4611686018427387904 elements of 4 bytes") != std::string::npos);
  m = message_of_make(Op::constant, {}, ConstantAttr{tensorjit::DType::i64, huge, Scalar{}});
  CHECK(m.find("constant: the result i64[4611686018427387904] is too large to allocate") != std::string::npos);
  // A cast that widens the elements past the limit: 2^60 f32 take 2^62 bytes, 2^60 f64 2^63.
  auto narrow = broadcast_one({std::int64_t{1} << 60});
  m = message_of_make(Op::cast, {narrow}, CastAttr{tensorjit::DType::f64});
  CHECK(m.find("cast: the result f64[1152921504606846976]") != std::string::npos);
}
