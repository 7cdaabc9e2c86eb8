// Iota leaves: views folded into an iota's layout give the values of the same views of the 1-D
// iota, and the plan computes an iota in the kernels that read it.
#include <string>

#include <tensorjit/ir/pipeline.hpp>

#include "interpreter_testing.hpp"
#include "ir/passes/fold_views.hpp"

using tensorjit::DType;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

TEST_CASE("iota: views folded into its layout give the values of the same views of the 1-D iota") {
  for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean}) {
    INFO(tensorjit::dtype_name(dtype));
    NodePtr line = make_iota(dtype, 24, -3.5, 0.75);
    NodePtr grid = make_reshape(line, {2, 3, 4});
    NodePtr permuted = make_permute(grid, {2, 0, 1});
    NodePtr sliced = Node::make(Op::slice, {permuted}, SliceAttr{0, 3, -2, 2});
    NodePtr expanded = make_expand(make_reshape(sliced, {1, 2, 2, 3}), {5, 2, 2, 3});
    for (const NodePtr& view : {grid, permuted, sliced, expanded}) {
      Graph folded = fold_views(Graph{{view}});
      REQUIRE(folded.outputs[0]->op() == Op::iota);
      CHECK(structurally_equal(folded.outputs[0], fold_views(Graph{{folded.outputs[0]}}).outputs[0]));
      auto expected = interpret(Graph{{view}}).at(0);
      auto got = interpret(folded).at(0);
      visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        check_same(read<T>(got), read<T>(expected));
      });
    }
  }
}

TEST_CASE("iota: computed by the kernels that read it, written only as an output or a matmul operand") {
  NodePtr positions = make_reshape(make_iota(DType::f32, 6, 0, 1), {2, 3});
  NodePtr doubled = make_binary(Op::add, positions, positions);
  Plan plan = plan_graph(Graph{{doubled}});
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Step::Kind::loop);
  // A reduction of it reads it as a leaf too.
  plan = plan_graph(Graph{{make_reduce(Op::reduce_sum, positions, {1}, false)}});
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Step::Kind::reduce);
  // As an output, or an operand of a matmul (read from memory by the GEMM), it is a step of its own.
  plan = plan_graph(Graph{{positions}});
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Step::Kind::single);
  plan = plan_graph(Graph{{Node::make(Op::matmul, {positions, make_reshape(positions, {3, 2})})}});
  REQUIRE(plan.steps.size() == 3);  // each operand's own iota (the views folded into it), then the matmul
  for (int s : {0, 1}) {
    CHECK(plan.steps[static_cast<std::size_t>(s)].kind == Step::Kind::single);
    CHECK(plan.steps[static_cast<std::size_t>(s)].nodes[0]->op() == Op::iota);
  }
}
