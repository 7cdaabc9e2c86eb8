// fold_views keeps a matmul operand's reshapes, permutes and expands over the elementwise value
// they view (attention's head split), so that value is written once in its own shape by its
// product's epilogue; a slice is still pushed down.
#include <map>
#include <string>

#include <doctest/doctest.h>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/text.hpp>

namespace ir = tensorjit::ir;

namespace {

// q = x @ w + b over [B=2, T=4, H=8], split into 2 heads [2, 2, 4, 4], times k's transposed heads.
std::string attention_scores(const std::string& head_view) {
  return R"(graph {
  %0 = input f32[2, 4, 8] strides=[32, 8, 1] offset=0
  %1 = input f32[2, 8, 8] strides=[0, 8, 1] offset=0
  %2 = matmul f32[2, 4, 8] %0, %1
  %3 = input f32[2, 4, 8] strides=[0, 0, 1] offset=0
  %4 = add f32[2, 4, 8] %2, %3
)" + head_view + R"(
  %7 = input f32[2, 2, 4, 4] strides=[32, 4, 1, 8] offset=0
  %8 = matmul f32[2, 2, 4, 4] %6, %7
  outputs %8
}
)";
}

std::map<ir::Step::Kind, int> step_kinds(const ir::Plan& plan) {
  std::map<ir::Step::Kind, int> kinds;
  for (const ir::Step& step : plan.steps) ++kinds[step.kind];
  return kinds;
}

}  // namespace

TEST_CASE("fold_views: a head split read by a matmul stays a view of the biased product") {
  const ir::Plan plan = ir::plan_graph(ir::parse(attention_scores(
      "  %5 = reshape f32[2, 4, 2, 4] %4 shape=[2, 4, 2, 4]\n"
      "  %6 = permute f32[2, 2, 4, 4] %5 perm=[0, 2, 1, 3]")));
  INFO(ir::print_plan(plan));
  // The bias in the first product's epilogue, the second product reading it through the views:
  // no loop step writes a permuted copy.
  auto kinds = step_kinds(plan);
  CHECK(kinds[ir::Step::Kind::product] == 1);
  CHECK(kinds[ir::Step::Kind::single] == 1);
  CHECK(plan.steps.size() == 2);
}

TEST_CASE("fold_views: a slice read by a matmul is still pushed down to what it reads") {
  // Every other row of the biased product: the add computes only the rows the slice keeps, in a
  // loop of its own, rather than all of them in the product's epilogue.
  const ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = input f32[2, 4, 8] strides=[32, 8, 1] offset=0
  %1 = input f32[2, 8, 8] strides=[0, 8, 1] offset=0
  %2 = matmul f32[2, 4, 8] %0, %1
  %3 = input f32[2, 4, 8] strides=[0, 0, 1] offset=0
  %4 = add f32[2, 4, 8] %2, %3
  %5 = slice f32[2, 2, 8] %4 axis=1 start=0 step=2 count=2
  %6 = input f32[2, 8, 3] strides=[24, 3, 1] offset=0
  %7 = matmul f32[2, 2, 3] %5, %6
  outputs %7
}
)"));
  INFO(ir::print_plan(plan));
  auto kinds = step_kinds(plan);
  CHECK(kinds[ir::Step::Kind::loop] == 1);
  CHECK(kinds[ir::Step::Kind::single] == 2);
}
