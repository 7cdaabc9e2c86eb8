// The interpreter as a whole: sources (constant, iota), several outputs sharing nodes, rank 0,
// unbound inputs, result alignment; and evaluate_scalar, the same semantics on Scalar values.
#include <string>

#include <tensorjit/ir/scalar_ops.hpp>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;
using i64 = std::int64_t;

TEST_CASE("interpreter: a constant is one element seen through zero strides") {
  Value value = run({make_constant(DType::f32, {2, 3}, Scalar::of(DType::f32, 1.5))}).at(0);
  CHECK(value.layout.strides == Strides{0, 0});
  check_same(read<float>(value), std::vector<float>(6, 1.5f));
  check_same(evaluate<i64>(make_constant(DType::i64, {2}, Scalar::of_int(DType::i64, kInt64Min))),
             {kInt64Min, kInt64Min});
  check_same(evaluate<bool>(make_constant(DType::boolean, {}, Scalar::of_int(DType::boolean, 1))),
             {true});
  check_same(evaluate<double>(make_constant(DType::f64, {1}, Scalar::of(DType::f64, -0.0))),
             {-0.0});
  auto sum = make_binary(Op::add, input<i32>({1, 2}),
                         make_constant(DType::i32, {2}, Scalar::of_int(DType::i32, kInt32Max)));
  check_same(evaluate<i32>(sum), {kInt32Min, kInt32Min + 1});
}

TEST_CASE("interpreter: iota is start + i * step in double, converted as cast converts") {
  check_same(evaluate<float>(iota(DType::f32, 4, 0.5, 0.25)), {0.5f, 0.75f, 1.0f, 1.25f});
  // -1, 1.6, 4.2, 6.8 truncated toward zero.
  check_same(evaluate<i32>(iota(DType::i32, 4, -1.0, 2.6)), {-1, 1, 4, 6});
  check_same(evaluate<i32>(iota(DType::i32, 2, 2147483647.0, 1e10)), {kInt32Max, kInt32Max});
  check_same(evaluate<bool>(iota(DType::boolean, 3, -1.0, 1.0)), {true, false, true});
  // 0.1 * 3 == 0.30000000000000004 in double: a multiply and an add, no fma.
  check_same(evaluate<double>(iota(DType::f64, 4, 0.0, 0.1)), {0.0, 0.1, 0.2, 0.1 * 3.0});
  CHECK(evaluate<i64>(iota(DType::i64, 0, 0.0, 1.0)).empty());
}

TEST_CASE("interpreter: several outputs share the nodes they have in common") {
  auto x = input<float>({0.0f, 1.0f, -2.0f});
  auto e = make_unary(Op::exp, x);
  auto plus_one =
      make_binary(Op::add, e, make_constant(DType::f32, {3}, Scalar::of(DType::f32, 1)));
  auto twice = make_binary(Op::mul, e, e);
  auto total = make_reduce(Op::reduce_sum, twice, {0}, false);
  auto values = run({plus_one, e, total, e, twice});
  REQUIRE(values.size() == 5);
  const std::vector<float> exp{1.0f, std::exp(1.0f), std::exp(-2.0f)};
  check_same(read<float>(values[0]), {exp[0] + 1, exp[1] + 1, exp[2] + 1});
  check_same(read<float>(values[1]), exp);
  // The strict order's tree adds lane 0 to lane 2 first (reduction_order.hpp).
  check_same(read<float>(values[2]), {(exp[0] * exp[0] + exp[2] * exp[2]) + exp[1] * exp[1]});
  CHECK(values[3].buffer == values[1].buffer);  // one node, computed once
  check_same(read<float>(values[4]), {exp[0] * exp[0], exp[1] * exp[1], exp[2] * exp[2]});
}

TEST_CASE("interpreter: an output that is an input is the input's own buffer") {
  auto x = input<i32>({2, 2}, {1, 2, 3, 4});
  auto values = run({x, make_unary(Op::neg, x)});
  CHECK(values[0].buffer == x->attr<InputAttr>().buffer);
  check_same(read<i32>(values[1]), {-1, -2, -3, -4});
}

TEST_CASE("interpreter: computed results are 64-byte aligned and contiguous") {
  auto x = input<double>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto values = run({make_unary(Op::sqrt, x), make_reduce(Op::reduce_sum, x, {0}, true),
                     matmul(x, make_permute(x, {1, 0}))});
  for (const Value& value : values) {
    CHECK(reinterpret_cast<std::uintptr_t>(value.buffer->data()) % Buffer::kAlignment == 0);
    CHECK(value.layout.is_contiguous());
  }
}

TEST_CASE("interpreter: rank-0 values through a chain of ops") {
  auto x = input<double>(Shape{}, {-4.0});
  auto y = make_unary(Op::sqrt, make_unary(Op::abs, x));
  auto z = make_reduce(Op::reduce_sum, make_reshape(y, {1, 1}), {0, 1}, false);
  Value value = run({z}).at(0);
  CHECK(value.layout.shape == Shape{});
  check_same(read<double>(value), {2.0});
}

TEST_CASE("interpreter: an unbound input is an error naming it") {
  auto unbound = Node::make(
      Op::input, {}, InputAttr{nullptr, DType::f32, Layout::contiguous({2, 3}), next_input_id()});
  try {
    interpret(Graph{{make_unary(Op::neg, unbound)}});
    FAIL("no error for an unbound input");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("not bound") != std::string::npos);
    CHECK(message.find("f32[2, 3]") != std::string::npos);
  }
}

TEST_CASE("evaluate_scalar applies the interpreter's semantics to Scalar values") {
  const auto i32_scalar = [](i64 value) { return Scalar::of_int(DType::i32, value); };
  const auto f32_scalar = [](double value) { return Scalar::of(DType::f32, value); };
  std::vector<Scalar> operands{i32_scalar(kInt32Max), i32_scalar(1)};
  CHECK(evaluate_scalar(Op::add, DType::i32, DType::i32, operands).i == kInt32Min);
  operands = {i32_scalar(-7), i32_scalar(2)};
  CHECK(evaluate_scalar(Op::div, DType::i32, DType::i32, operands).i == -4);
  CHECK(evaluate_scalar(Op::mod, DType::i32, DType::i32, operands).i == 1);
  CHECK(evaluate_scalar(Op::lt, DType::i32, DType::boolean, operands).i == 1);
  operands = {f32_scalar(kNaN)};
  CHECK(evaluate_scalar(Op::cast, DType::f32, DType::i64, operands).i == 0);
  CHECK(evaluate_scalar(Op::cast, DType::f32, DType::boolean, operands).i == 1);
  operands = {f32_scalar(-0.0), f32_scalar(0.0)};
  CHECK(std::signbit(evaluate_scalar(Op::maximum, DType::f32, DType::f32, operands).f));
  operands = {f32_scalar(2.0)};
  CHECK(evaluate_scalar(Op::exp, DType::f32, DType::f32, operands).f ==
        static_cast<double>(std::exp(2.0f)));
  operands = {Scalar::of_int(DType::boolean, 0), f32_scalar(1.0), f32_scalar(-0.0)};
  CHECK(std::signbit(evaluate_scalar(Op::where, DType::f32, DType::f32, operands).f));
  CHECK_THROWS_AS(evaluate_scalar(Op::reshape, DType::f32, DType::f32, operands), InternalError);
  CHECK_THROWS_AS(evaluate_scalar(Op::sqrt, DType::i32, DType::i32, std::vector{i32_scalar(4)}),
                  InternalError);
  CHECK_THROWS_AS(evaluate_scalar(Op::add, DType::i32, DType::i32, std::vector{i32_scalar(4)}),
                  InternalError);
}
