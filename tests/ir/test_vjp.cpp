// The VJP table against central finite differences, in f64 through the interpreter: every
// differentiable op on random shapes, its operands reached through random views (transposes,
// strided and reversed slices, broadcasts), and gradients of gradients. A last case checks that
// every differentiable row of the table was exercised.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/vjp.hpp>

#include "interpreter_testing.hpp"

namespace {

using namespace tensorjit;
using namespace tensorjit::ir;

// The ops whose gradients some case below checked.
std::set<Op>& exercised() {
  static std::set<Op> ops;
  return ops;
}

NodePtr f64_input(const Shape& shape, const std::vector<double>& values) {
  return testing::input<double>(shape, values);
}

std::vector<double> read_f64(const Value& value) { return testing::read<double>(value); }

// How an operand of the function under test is reached from the input the test perturbs.
struct Leaf {
  Shape base;                               // the perturbed input's shape
  std::function<NodePtr(NodePtr)> view;     // base -> operand
  std::vector<double> values;
};

// A random way to present an operand of `shape`: as it is, transposed, as a strided or reversed
// slice of a larger input, or broadcast from size-1 and missing leading axes.
Leaf random_leaf(const Shape& shape, std::mt19937_64& rng) {
  const int rank = static_cast<int>(shape.size());
  int kind = std::uniform_int_distribution<int>(0, 3)(rng);
  Leaf leaf{shape, [](NodePtr n) { return n; }, {}};
  if (kind == 1 && rank >= 2) {
    Shape reversed(shape.rbegin(), shape.rend());
    std::vector<int> perm(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) perm[static_cast<std::size_t>(i)] = rank - 1 - i;
    leaf.base = reversed;
    leaf.view = [perm](NodePtr n) { return make_permute(n, perm); };
  } else if (kind == 2 && rank >= 1) {
    int axis = std::uniform_int_distribution<int>(0, rank - 1)(rng);
    std::int64_t count = shape[static_cast<std::size_t>(axis)];
    bool reverse = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    leaf.base[static_cast<std::size_t>(axis)] = 2 * count + 1;
    SliceAttr slice = reverse ? SliceAttr{axis, 2 * count, -2, count} : SliceAttr{axis, 1, 2, count};
    leaf.view = [slice](NodePtr n) { return Node::make(Op::slice, {n}, slice); };
  } else if (kind == 3 && rank >= 1) {
    Shape base = shape;
    for (auto& e : base) e = std::uniform_int_distribution<int>(0, 1)(rng) ? 1 : e;
    if (rank >= 2 && std::uniform_int_distribution<int>(0, 1)(rng)) base.erase(base.begin());
    leaf.base = base;
    leaf.view = [shape](NodePtr n) { return make_expand(n, shape); };
  }
  return leaf;
}

struct Case {
  std::string name;
  std::vector<Shape> shapes;
  double low = -2, high = 2;  // the operands' values; |v| < 0.1 moves away from kinks at 0
  std::function<NodePtr(const std::vector<NodePtr>&)> build;
  double step = 1e-6;         // relative finite-difference step
  double tolerance = 1e-6;    // relative to max(1, |gradient|)
  bool zeros = false;         // also put exact zeros among the values (prod)
};

// sum(f(operands) * w): a scalar whose gradient is the VJP of f with the random adjoint w.
NodePtr objective(const Case& c, const std::vector<Leaf>& leaves, const std::vector<NodePtr>& bases,
                  const NodePtr& weight) {
  std::vector<NodePtr> operands;
  for (std::size_t i = 0; i < leaves.size(); ++i) operands.push_back(leaves[i].view(bases[i]));
  NodePtr y = c.build(operands);
  std::vector<int> axes(static_cast<std::size_t>(y->rank()));
  for (int i = 0; i < y->rank(); ++i) axes[static_cast<std::size_t>(i)] = i;
  return make_reduce(Op::reduce_sum, make_binary(Op::mul, y, weight), axes, false);
}

void check_case(const Case& c, std::uint64_t seed) {
  CAPTURE(c.name);
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(c.low, c.high);
  std::vector<Leaf> leaves;
  std::vector<NodePtr> bases;
  for (const auto& shape : c.shapes) {
    Leaf leaf = random_leaf(shape, rng);
    std::int64_t count = 1;
    for (auto e : leaf.base) count *= e;
    for (std::int64_t i = 0; i < count; ++i) {
      double v = value(rng);
      if (std::abs(v) < 0.1 && c.low < 0) v += 0.2;
      if (c.zeros && std::uniform_int_distribution<int>(0, 5)(rng) == 0) v = 0;
      leaf.values.push_back(v);
    }
    bases.push_back(f64_input(leaf.base, leaf.values));
    leaves.push_back(std::move(leaf));
  }
  // The adjoint of the function's result: its shape is known once it is built.
  NodePtr probe = c.build([&] {
    std::vector<NodePtr> ops;
    for (std::size_t i = 0; i < leaves.size(); ++i) ops.push_back(leaves[i].view(bases[i]));
    return ops;
  }());
  std::vector<double> w(static_cast<std::size_t>(probe->numel()));
  for (auto& v : w) v = std::uniform_real_distribution<double>(-1, 1)(rng);
  NodePtr weight = f64_input(probe->shape(), w);

  NodePtr loss = objective(c, leaves, bases, weight);
  for (const auto& node : topological_order(Graph{{loss}})) exercised().insert(node->op());
  auto one = make_constant(DType::f64, {}, Scalar::of(DType::f64, 1));
  std::vector<NodePtr> gradients = vjp(loss, bases, one);
  Graph graph{gradients};
  verify(graph);
  std::vector<Value> values = interpret(graph);

  auto loss_at = [&](std::size_t which, std::vector<double> perturbed) {
    std::vector<NodePtr> moved = bases;
    moved[which] = f64_input(leaves[which].base, perturbed);
    return read_f64(interpret(Graph{{objective(c, leaves, moved, weight)}}).at(0)).at(0);
  };
  for (std::size_t i = 0; i < bases.size(); ++i) {
    std::vector<double> analytic = read_f64(values[i]);
    REQUIRE(analytic.size() == leaves[i].values.size());
    for (std::size_t j = 0; j < analytic.size(); ++j) {
      std::vector<double> up = leaves[i].values, down = leaves[i].values;
      const double h = c.step * std::max(1.0, std::abs(up[j]));
      up[j] += h;
      down[j] -= h;
      const double numeric = (loss_at(i, up) - loss_at(i, down)) / (2 * h);
      CAPTURE(i);
      CAPTURE(j);
      CHECK(std::abs(numeric - analytic[j]) <= c.tolerance * std::max(1.0, std::abs(analytic[j])));
    }
  }
}

Shape random_shape(std::mt19937_64& rng, int min_rank = 1, int max_rank = 3) {
  Shape shape(static_cast<std::size_t>(std::uniform_int_distribution<int>(min_rank, max_rank)(rng)));
  for (auto& e : shape) e = std::uniform_int_distribution<int>(1, 4)(rng);
  return shape;
}

NodePtr unary(Op op, const std::vector<NodePtr>& x) { return make_unary(op, x[0]); }
NodePtr binary(Op op, const std::vector<NodePtr>& x) { return make_binary(op, x[0], x[1]); }

void check_elementwise(Op op, int arity, double low, double high, double tolerance = 1e-6) {
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed * 7919 + static_cast<std::uint64_t>(op));
    Shape shape = random_shape(rng);
    Case c{std::string(op_name(op)), std::vector<Shape>(static_cast<std::size_t>(arity), shape), low, high,
           [op, arity](const std::vector<NodePtr>& x) { return arity == 1 ? unary(op, x) : binary(op, x); }};
    c.tolerance = tolerance;
    check_case(c, seed);
  }
}

TEST_CASE("vjp: unary ops against central differences") {
  for (Op op : {Op::neg, Op::abs, Op::sign, Op::square, Op::exp, Op::exp2, Op::expm1, Op::sin, Op::cos,
                Op::tanh, Op::sigmoid, Op::erf, Op::relu, Op::gelu, Op::gelu_tanh, Op::silu,
                Op::softplus, Op::copy}) {
    check_elementwise(op, 1, -2, 2);
  }
  for (Op op : {Op::sqrt, Op::rsqrt, Op::reciprocal, Op::log, Op::log2, Op::log1p}) {
    check_elementwise(op, 1, 0.3, 3);
  }
  check_elementwise(Op::softplus, 1, 20.5, 24);  // the linear side of the threshold
  check_elementwise(Op::tan, 1, -1.2, 1.2);
  check_elementwise(Op::atan, 1, -3, 3);
  // Piecewise constant: 0 away from the steps (the values stay off the integers and halves).
  for (Op op : {Op::floor, Op::ceil, Op::round, Op::trunc}) check_elementwise(op, 1, 0.1, 0.4);
}

TEST_CASE("vjp: binary ops and where against central differences") {
  for (Op op : {Op::add, Op::sub, Op::mul, Op::maximum, Op::minimum}) check_elementwise(op, 2, -2, 2);
  check_elementwise(Op::div, 2, 0.3, 3);
  check_elementwise(Op::pow, 2, 0.3, 2);
  check_elementwise(Op::mod, 2, 0.3, 3);
  check_elementwise(Op::atan2, 2, 0.3, 3);
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed);
    Shape shape = random_shape(rng);
    check_case({"where", {shape, shape, shape}, -2, 2,
                [](const std::vector<NodePtr>& x) {
                  auto zero = make_constant(DType::f64, x[0]->shape(), Scalar::of(DType::f64, 0));
                  return Node::make(Op::where, {make_binary(Op::gt, x[0], zero), x[1], x[2]});
                }},
               seed);
  }
}

TEST_CASE("vjp: casts, views, reductions, scans, sorts, gathers, scatters and products") {
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed + 100);
    Shape shape = random_shape(rng);
    const int rank = static_cast<int>(shape.size());
    std::vector<int> axes;
    for (int a = 0; a < rank; ++a) {
      if (std::uniform_int_distribution<int>(0, 1)(rng) || a == rank - 1) axes.push_back(a);
    }
    const bool keepdims = seed % 2 == 0;
    const int axis = std::uniform_int_distribution<int>(0, rank - 1)(rng);
    for (Op op : {Op::reduce_sum, Op::reduce_prod, Op::reduce_max, Op::reduce_min}) {
      Case c{std::string(op_name(op)), {shape}, -2, 2,
             [=](const std::vector<NodePtr>& x) { return make_reduce(op, x[0], axes, keepdims); }};
      c.zeros = op == Op::reduce_prod;
      check_case(c, seed);
    }
    Case cast{"cast", {shape}, -2, 2, [](const std::vector<NodePtr>& x) {
                return make_cast(make_cast(x[0], DType::f32), DType::f64);
              }};
    cast.step = 1e-2;  // linear: a large step only needs f32's rounding to be small beside it
    cast.tolerance = 1e-4;
    check_case(cast, seed);
    check_case({"reshape", {shape}, -2, 2,
                [](const std::vector<NodePtr>& x) { return make_reshape(x[0], {x[0]->numel()}); }},
               seed);
    check_case({"cumsum", {shape}, -2, 2,
                [axis](const std::vector<NodePtr>& x) { return make_cumsum(x[0], axis); }},
               seed);
    // Three operands of different extents along the axis, one of them empty, one used twice.
    Shape longer = shape, empty = shape;
    longer[static_cast<std::size_t>(axis)] += 2;
    empty[static_cast<std::size_t>(axis)] = 0;
    check_case({"concat", {shape, longer, empty}, -2, 2,
                [axis](const std::vector<NodePtr>& x) { return make_concat({x[0], x[1], x[2], x[0]}, axis); }},
               seed);
    const std::int64_t extent = shape[static_cast<std::size_t>(axis)];
    const std::int64_t count = std::uniform_int_distribution<std::int64_t>(0, extent)(rng);
    const bool descending = seed % 3 == 0;
    check_case({"sort", {shape}, -2, 2,
                [=](const std::vector<NodePtr>& x) { return make_sort(Op::sort, x[0], axis, descending, count); }},
               seed);
    // Indices with repeats (the adjoint adds several g at one place) and negative ones.
    Shape gathered = shape;
    gathered[static_cast<std::size_t>(axis)] = 5;
    std::vector<std::int64_t> picks;
    for (std::int64_t i = 0, count_all = 5 * (checked_numel(shape, "test") / extent); i < count_all; ++i)
      picks.push_back(std::uniform_int_distribution<std::int64_t>(-extent, extent - 1)(rng));
    const NodePtr indices = testing::input<std::int64_t>(gathered, picks);
    check_case({"gather", {shape}, -2, 2,
                [=](const std::vector<NodePtr>& x) {
                  return make_gather(x[0], indices, IndexAttr{axis, 0, IndexOrigin::take_along_axis});
                }},
               seed);
    check_case({"scatter_add", {shape, gathered}, -2, 2,
                [=](const std::vector<NodePtr>& x) {
                  return make_scatter_add(x[0], indices, x[1], IndexAttr{axis, 0, IndexOrigin::scatter_add});
                }},
               seed);
    const std::int64_t m = shape[0], k = std::uniform_int_distribution<int>(1, 5)(rng), n = 3;
    check_case({"matmul", {{m, k}, {k, n}}, -2, 2,
                [](const std::vector<NodePtr>& x) { return make_binary(Op::matmul, x[0], x[1]); }},
               seed);
    check_case({"batched matmul", {{2, m, k}, {2, k, n}}, -2, 2,
                [](const std::vector<NodePtr>& x) { return make_binary(Op::matmul, x[0], x[1]); }},
               seed);
  }
}

TEST_CASE("vjp: a softmax, a layernorm and the gradient of a gradient") {
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    std::mt19937_64 rng(seed + 200);
    Shape shape = random_shape(rng, 2, 3);
    const int last = static_cast<int>(shape.size()) - 1;
    check_case({"softmax", {shape}, -3, 3,
                [last](const std::vector<NodePtr>& x) {
                  auto shift = make_unary(Op::detach, make_reduce(Op::reduce_max, x[0], {last}, true));
                  auto e = make_unary(Op::exp, make_binary(Op::sub, x[0], make_expand(shift, x[0]->shape())));
                  auto total = make_expand(make_reduce(Op::reduce_sum, e, {last}, true), x[0]->shape());
                  return make_binary(Op::div, e, total);
                }},
               seed);
    check_case({"layernorm", {shape}, -3, 3,
                [last](const std::vector<NodePtr>& x) {
                  const double n = static_cast<double>(x[0]->shape().back());
                  auto scalar = [&](const NodePtr& like, double v) {
                    return make_constant(DType::f64, like->shape(), Scalar::of(DType::f64, v));
                  };
                  auto mean = make_binary(Op::div, make_reduce(Op::reduce_sum, x[0], {last}, true),
                                          scalar(make_reduce(Op::reduce_sum, x[0], {last}, true), n));
                  auto centred = make_binary(Op::sub, x[0], make_expand(mean, x[0]->shape()));
                  auto sq = make_reduce(Op::reduce_sum, make_binary(Op::mul, centred, centred), {last}, true);
                  auto variance = make_binary(Op::div, sq, scalar(sq, n));
                  auto inv = make_unary(Op::rsqrt, make_binary(Op::add, variance, scalar(variance, 1e-5)));
                  return make_binary(Op::mul, centred, make_expand(inv, x[0]->shape()));
                }},
               seed);
    check_case({"grad of grad", {shape, shape}, -2, 2,
                [](const std::vector<NodePtr>& x) {
                  auto inner = make_binary(Op::mul, make_unary(Op::tanh, x[0]), make_unary(Op::sin, x[1]));
                  std::vector<int> all(static_cast<std::size_t>(inner->rank()));
                  for (int i = 0; i < inner->rank(); ++i) all[static_cast<std::size_t>(i)] = i;
                  auto total = make_reduce(Op::reduce_sum, make_binary(Op::mul, inner, inner), all, false);
                  auto one = make_constant(DType::f64, {}, Scalar::of(DType::f64, 1));
                  auto g = vjp(total, {x[0], x[1]}, one);
                  return make_binary(Op::add, g[0], make_binary(Op::mul, g[1], g[1]));
                }},
               seed);
  }
}

TEST_CASE("vjp: detach and integer paths pass nothing") {
  auto x = f64_input({3}, {1, 2, 3});
  auto one = make_constant(DType::f64, {}, Scalar::of(DType::f64, 1));
  auto y = make_reduce(Op::reduce_sum, make_binary(Op::mul, make_unary(Op::detach, x), x), {0}, false);
  auto through_int = make_reduce(Op::reduce_sum, make_cast(make_cast(x, DType::i64), DType::f64), {0}, false);
  auto g = vjp(make_binary(Op::add, y, through_int), {x}, one);
  auto values = read_f64(interpret(Graph{g}).at(0));
  CHECK(values == std::vector<double>{1, 2, 3});  // d(stop(x) * x) = stop(x); the int path gives 0
  auto unused = vjp(y, {f64_input({2}, {5, 6})}, one);
  CHECK(read_f64(interpret(Graph{unused}).at(0)) == std::vector<double>{0, 0});
}

TEST_CASE("vjp: every op has a row, and every differentiable row was checked above") {
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    const VjpRow& row = vjp_row(op);
    CAPTURE(op_name(op));
    CHECK(row.op == op);
    if (row.kind == VjpKind::differentiable) CHECK(exercised().contains(op));
    if (row.kind == VjpKind::none) CHECK(!row.reason.empty());
  }
}

}  // namespace
