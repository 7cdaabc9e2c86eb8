// The pipeline: its passes in order, the log of each, and verify_plan's checks of a plan.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/plan.hpp>
#include <tensorjit/ir/text.hpp>

namespace ir = tensorjit::ir;

namespace {

// softmax over rows, a sum, and a view: every pass has something to do.
constexpr const char* kGraph = R"(graph {
  %0 = input f32[4, 8] strides=[8, 1] offset=0
  %1 = reduce_max f32[4, 1] %0 axes=[1] keepdims=true mode=strict
  %2 = expand f32[4, 8] %1 shape=[4, 8]
  %3 = sub f32[4, 8] %0, %2
  %4 = exp f32[4, 8] %3
  %5 = reduce_sum f32[4, 1] %4 axes=[1] keepdims=true mode=strict
  %6 = expand f32[4, 8] %5 shape=[4, 8]
  %7 = div f32[4, 8] %4, %6
  outputs %7
}
)";

}  // namespace

TEST_CASE("pipeline: the passes in order, each logged with the plan it left") {
  std::vector<std::string> names;
  for (const auto& pass : ir::pipeline_passes()) names.emplace_back(pass.name);
  CHECK(names == std::vector<std::string>{"canonicalize", "fold_views", "fuse", "fuse_reductions",
                                          "fuse_scans", "fuse_rows", "recompute_row_values",
                                          "fuse_epilogues"});

  ir::PipelineLog log;
  const ir::Plan plan = ir::plan_graph(ir::parse(kGraph), &log);
  REQUIRE(log.passes.size() == names.size());
  for (std::size_t p = 0; p < names.size(); ++p) CHECK(log.passes[p].name == names[p]);
  // Before fuse a plan is its graph alone; fuse makes steps, fuse_rows joins softmax's into one.
  CHECK(log.passes[1].after.steps.empty());
  CHECK(log.passes[2].changed);
  CHECK_FALSE(log.passes[2].after.steps.empty());
  CHECK_FALSE(log.passes[4].changed);  // no cumsum: fuse_scans has nothing to join
  CHECK(log.passes[5].changed);
  CHECK_FALSE(log.passes[7].changed);  // no matmul: fuse_epilogues has nothing to join
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == ir::Step::Kind::row);
  CHECK(ir::print_plan(log.passes.back().after) == ir::print_plan(plan));
  ir::verify_plan(plan);
}

TEST_CASE("verify_plan: a step that reads a value before it is computed, or writes what it does not compute") {
  ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = input f32[16] strides=[1] offset=0
  %1 = exp f32[16] %0
  %2 = reduce_sum f32[] %1 axes=[0] keepdims=false mode=strict
  %3 = mul f32[16] %0, %0
  %4 = reduce_max f32[] %3 axes=[0] keepdims=false mode=strict
  %5 = add f32[] %2, %4
  outputs %5
}
)"));
  ir::verify_plan(plan);
  REQUIRE(plan.steps.size() >= 2);

  ir::Plan reversed = plan;
  std::swap(reversed.steps.front(), reversed.steps.back());
  CHECK_THROWS_WITH_AS(ir::verify_plan(reversed), doctest::Contains("which no earlier step computes"),
                       tensorjit::InternalError);

  ir::Plan stray = plan;
  stray.steps.front().outputs.push_back(plan.graph.outputs.front());
  stray.steps.front().reasons.push_back("a stray output");
  CHECK_THROWS_WITH_AS(ir::verify_plan(stray), doctest::Contains("which it does not compute"),
                       tensorjit::InternalError);

  ir::Plan unexplained = plan;
  unexplained.steps.front().reasons.clear();
  CHECK_THROWS_WITH_AS(ir::verify_plan(unexplained), doctest::Contains("reasons for"), tensorjit::InternalError);

  ir::Plan missing = plan;
  missing.steps.pop_back();
  CHECK_THROWS_AS(ir::verify_plan(missing), tensorjit::InternalError);
}

TEST_CASE("is_structural_constant: the values a rewrite or LLVM's division reads, and no other") {
  using tensorjit::DType;
  auto f32 = [](double v) { return ir::Scalar::of(DType::f32, v); };
  auto i64 = [](std::int64_t v) { return ir::Scalar::of_int(DType::i64, v); };
  for (double v : {0.0, -0.0, 1.0, 2.0, 0.5, 1024.0, -0.25})
    CHECK_MESSAGE(ir::is_structural_constant(DType::f32, f32(v)), v);
  for (double v : {3.0, 0.1, -1.5, 1e-5, 1.0 / 384})
    CHECK_FALSE_MESSAGE(ir::is_structural_constant(DType::f32, f32(v)), v);
  CHECK(ir::is_structural_constant(DType::i64, i64(0)));
  CHECK(ir::is_structural_constant(DType::i64, i64(1)));
  CHECK_FALSE(ir::is_structural_constant(DType::i64, i64(2)));  // only floats divide as a multiply
  CHECK_FALSE(ir::is_structural_constant(DType::i64, i64(-1)));
  CHECK(ir::is_structural_constant(DType::boolean, ir::Scalar::of_int(DType::boolean, 0)));
  CHECK(ir::is_structural_constant(DType::boolean, ir::Scalar::of_int(DType::boolean, 1)));
}

TEST_CASE("a constant that is a graph output is a fill step of its own") {
  const ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = constant f32[4] value=2.5
  %1 = input f32[4] strides=[1] offset=0
  %2 = mul f32[4] %1, %1
  outputs %0, %2
}
)"));
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].kind == ir::Step::Kind::fill);
  CHECK(ir::step_kind_name(plan.steps[0].kind) == "fill");
  CHECK(plan.steps[1].kind == ir::Step::Kind::loop);
  CHECK(ir::print_plan(plan).find("step 0: fill over f32[4]") != std::string::npos);
}

TEST_CASE("fuse: ops that read only inputs and constants join the later loop that reads them") {
  // Adam's second moment: v * beta2 reads only an input and a constant, the rest a product's
  // result; sqrt(v) * 2 is a chain of such ops. Each joins the product's epilogue instead of a
  // loop step of its own whose value the epilogue reads back.
  const ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = input f32[8, 16] strides=[16, 1] offset=0
  %1 = input f32[16, 4] strides=[4, 1] offset=0
  %2 = matmul f32[8, 4] %0, %1
  %3 = input f32[8, 4] strides=[4, 1] offset=0
  %4 = constant f32[8, 4] value=0.999
  %5 = mul f32[8, 4] %3, %4
  %6 = mul f32[8, 4] %2, %2
  %7 = add f32[8, 4] %5, %6
  %8 = sqrt f32[8, 4] %3
  %9 = mul f32[8, 4] %8, %4
  %10 = div f32[8, 4] %7, %9
  outputs %10
}
)"));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == ir::Step::Kind::product);
  CHECK(plan.steps[0].nodes.size() == 7);  // the matmul and its epilogue of six ops
}

TEST_CASE("fuse: an op that reads only inputs stays before a product that reads it") {
  // x * 2 is read by the product's epilogue and by the product itself, whose GEMM reads it from
  // memory: it is written by a loop step before the product, not moved into the epilogue.
  const ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = input f32[4, 4] strides=[4, 1] offset=0
  %1 = constant f32[4, 4] value=2
  %2 = mul f32[4, 4] %0, %1
  %3 = matmul f32[4, 4] %2, %2
  %4 = add f32[4, 4] %3, %2
  outputs %4
}
)"));
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].kind == ir::Step::Kind::loop);
  CHECK(plan.steps[1].kind == ir::Step::Kind::product);
  CHECK(plan.steps[1].nodes.size() == 2);  // the matmul and the add
}

TEST_CASE("values_last_read: each value once, at the last step that reads it, and never a graph output") {
  // Three products in a chain; the first's result is an output too, the weight is read by all.
  const ir::Plan plan = ir::plan_graph(ir::parse(R"(graph {
  %0 = input f32[4, 8] strides=[8, 1] offset=0
  %1 = input f32[8, 8] strides=[8, 1] offset=0
  %2 = matmul f32[4, 8] %0, %1
  %3 = matmul f32[4, 8] %2, %1
  %4 = matmul f32[4, 8] %3, %1
  outputs %4, %2
}
)"));
  REQUIRE(plan.steps.size() == 3);
  const auto last_read = ir::values_last_read(plan);
  REQUIRE(last_read.size() == plan.steps.size());
  auto reads = [&](std::size_t step, const ir::Node* value) {
    bool found = false;
    for (const auto& node : plan.steps[step].nodes)
      ir::for_each_read(*node, [&](const ir::NodePtr& in) { found = found || ir::view_base(in.get()) == value; });
    return found;
  };
  std::vector<const ir::Node*> listed;
  for (std::size_t s = 0; s < last_read.size(); ++s)
    for (const ir::Node* value : last_read[s]) {
      CAPTURE(s);
      CHECK(reads(s, value));
      for (std::size_t later = s + 1; later < plan.steps.size(); ++later) CHECK_FALSE(reads(later, value));
      for (const auto& out : plan.graph.outputs) CHECK(ir::view_base(out.get()) != value);
      CHECK(std::count(listed.begin(), listed.end(), value) == 0);
      listed.push_back(value);
    }
  // x after the first product, the weight and the second product's result after the third.
  CHECK(last_read[0].size() == 1);
  CHECK(last_read[1].empty());
  CHECK(last_read[2].size() == 2);
}
