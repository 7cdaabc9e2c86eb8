// concat in the IR: Node::make's checks, the interpreter (the oracle the JIT is held to), the text
// form, canonicalize's rules for it, and how fuse plans it (a concat step whose parts are the loop
// steps that compute its operands and nothing else).
#include <doctest/doctest.h>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/text.hpp>

#include "interpreter_testing.hpp"
#include "ir/passes/canonicalize.hpp"

namespace {

using namespace tensorjit;
using namespace tensorjit::ir;

}  // namespace

TEST_SUITE("ir") {
  TEST_CASE("concat: shapes add along the axis; make rejects what does not join") {
    NodePtr a = testing::input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    NodePtr b = testing::input<float>({2, 1}, {7, 8});
    CHECK(make_concat({a, b, a}, 1)->shape() == Shape{2, 7});
    CHECK(make_concat({a}, 0)->shape() == Shape{2, 3});
    CHECK_THROWS_WITH_AS(make_concat({a, b}, 0), doctest::Contains("concat: operands must have one shape but along axis 0"), Error);
    CHECK_THROWS_WITH_AS(make_concat({a, make_cast(a, DType::f64)}, 0), doctest::Contains("concat: operands must have one dtype"), Error);
    CHECK_THROWS_WITH_AS(make_concat({a}, 2), doctest::Contains("concat: axis 2 is out of range"), Error);
    CHECK_THROWS_WITH_AS(make_concat({testing::input<float>({}, {1})}, 0), doctest::Contains("0-d"), Error);
    CHECK_THROWS_WITH_AS(Node::make(Op::concat, {}, ConcatAttr{0}), doctest::Contains("concat: takes one or more inputs"), Error);
  }

  TEST_CASE("concat: the interpreter places each operand, read through its layout, bit for bit") {
    NodePtr a = testing::input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    NodePtr b = testing::input<float>({2, 1}, {testing::kNaN, -0.0f});
    NodePtr t = make_permute(testing::input<float>({2, 2}, {10, 20, 30, 40}), {1, 0});
    testing::check_same(testing::evaluate<float>(make_concat({a, b, t}, 1)),
                        std::vector<float>{1, 2, 3, testing::kNaN, 10, 30, 4, 5, 6, -0.0f, 20, 40});
    testing::check_same(testing::evaluate<float>(make_concat({b, b}, 0)),
                        std::vector<float>{testing::kNaN, -0.0f, testing::kNaN, -0.0f});
    NodePtr empty = testing::input<std::int32_t>({0, 2}, {});
    NodePtr n = testing::input<std::int32_t>({1, 2}, {-1, 7});
    testing::check_same(testing::evaluate<std::int32_t>(make_concat({empty, n, empty, n}, 0)),
                        std::vector<std::int32_t>{-1, 7, -1, 7});
  }

  TEST_CASE("concat: the text form round-trips its operands and axis") {
    const std::string text =
        "graph {\n"
        "  %0 = input f32[2, 3] strides=[3, 1] offset=0\n"
        "  %1 = constant f32[2, 1] value=0\n"
        "  %2 = concat f32[2, 7] %0, %1, %0 axis=1\n"
        "  outputs %2\n"
        "}\n";
    CHECK(print(parse(text)) == text);
    CHECK_THROWS_WITH_AS(parse("graph {\n  %0 = input f32[2] strides=[1] offset=0\n  %1 = concat f32[2] axis=0\n  outputs %1\n}\n"),
                         doctest::Contains("expected operand 1 of concat"), Error);
  }

  TEST_CASE("concat: canonicalize drops empty operands, joins equal constants, slices the one part a slice reads") {
    NodePtr a = testing::input<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    NodePtr empty = testing::input<float>({2, 0}, {});
    auto canonical = [](NodePtr node) { return canonicalize(Graph{{std::move(node)}}).outputs.front(); };
    CHECK(canonical(make_concat({empty, a, empty}, 1)) == a);
    NodePtr c = make_constant(DType::f32, {2, 2}, Scalar::of(DType::f32, 3));
    NodePtr joined = canonical(make_concat({c, make_constant(DType::f32, {2, 1}, Scalar::of(DType::f32, 3))}, 1));
    CHECK(joined->op() == Op::constant);
    CHECK(joined->shape() == Shape{2, 3});
    NodePtr part = canonical(make_slice(make_concat({a, a, a}, 1), 1, 4, 2));
    REQUIRE(part->op() == Op::slice);
    CHECK(part->input(0) == a);
    CHECK(part->attr<SliceAttr>().start == 1);
    CHECK(canonical(make_concat({empty, empty}, 0))->op() == Op::constant);
  }

  TEST_CASE("concat: fuse makes one concat step whose parts write in place") {
    NodePtr a = testing::input<float>({4, 3}, std::vector<float>(12, 1));
    NodePtr b = testing::input<float>({4, 5}, std::vector<float>(20, 2));
    NodePtr two = make_constant(DType::f32, {4, 3}, Scalar::of(DType::f32, 2));
    NodePtr inner = make_concat({make_binary(Op::mul, a, two), b}, 1);
    Plan plan = plan_graph(Graph{{make_concat({inner, make_unary(Op::exp, b), a}, 1)}});
    verify_plan(plan);
    const std::string text = print_plan(plan);
    INFO(text);
    REQUIRE(plan.steps.size() == 1);
    CHECK(plan.steps[0].kind == Step::Kind::concat);
    CHECK(plan.steps[0].parts.size() == 2);  // a * 2 and exp(b); b and a are copied
    CHECK(text.find("written in place") != std::string::npos);
    CHECK(text.find("joins") != std::string::npos);
  }
}
