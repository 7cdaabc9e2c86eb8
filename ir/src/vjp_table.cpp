// The vector-Jacobian products of the ops of ops.def, one row per op, in its order (vjp.hpp).
// Formulas follow PyTorch's derivatives.yaml, so that ties and kinks agree with it: relu passes
// nothing at 0, maximum and minimum split a tie in halves, max and min share the gradient evenly
// among the elements equal to the result, abs has gradient 0 at 0, sign has gradient 0.
//
// The walk (grad.cpp) calls a rule only for a node with a floating result, with `dy` of the node's
// shape and dtype; elementwise operands have that shape too (the API makes broadcasts explicit
// expands, whose row sums them back).
#include <tensorjit/ir/vjp.hpp>

#include <cmath>
#include <numbers>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::ir {
namespace {

using N = const NodePtr&;
using Adjoints = std::vector<NodePtr>;

// ---- builders over Node::make, all on operands of one shape and dtype ----

NodePtr constant(N like, double value) {
  return make_constant(like->dtype(), like->shape(), Scalar::of(like->dtype(), value));
}
NodePtr add(N a, N b) { return make_binary(Op::add, a, b); }
NodePtr sub(N a, N b) { return make_binary(Op::sub, a, b); }
NodePtr mul(N a, N b) { return make_binary(Op::mul, a, b); }
NodePtr div(N a, N b) { return make_binary(Op::div, a, b); }
NodePtr neg(N a) { return make_unary(Op::neg, a); }
NodePtr scale(N a, double s) { return mul(a, constant(a, s)); }
NodePtr where(N condition, N a, N b) { return Node::make(Op::where, {condition, a, b}); }
NodePtr compare(Op op, N a, N b) { return make_binary(op, a, b); }
NodePtr zeros(N like) { return constant(like, 0.0); }

const NodePtr& x(N node) { return node->input(0); }
const NodePtr& y(N node) { return node->input(1); }

// `g`, the adjoint of a reduction's result, as a value over the reduction's operand: the reduced
// axes put back as size 1 where keepdims dropped them, then broadcast.
NodePtr broadcast_back(N reduction, N g) {
  const auto& attr = reduction->attr<ReduceAttr>();
  Shape kept = x(reduction)->shape();
  for (int axis : attr.axes) kept[static_cast<std::size_t>(axis)] = 1;
  return make_expand(make_reshape(g, kept), x(reduction)->shape());
}

// The adjoint of a gather along `axis`: g added at `positions` (i64, g's shape) into zeros of g's
// shape with `extent` at `axis`, each destination's values in increasing position (scatter_add's
// fixed order, docs/indexing.md).
NodePtr scatter_along_axis(N g, N positions, int axis, std::int64_t extent) {
  Shape result = g->shape();
  result[static_cast<std::size_t>(axis)] = extent;
  NodePtr zero = make_constant(g->dtype(), result, Scalar::of(g->dtype(), 0));
  if (extent == 0 || g->numel() == 0) return zero;
  return make_scatter_add(zero, positions, g, IndexAttr{axis, 0, IndexOrigin::scatter_add});
}

// ---- the rules ----

Adjoints vjp_reshape(N node, N g) { return {make_reshape(g, x(node)->shape())}; }

Adjoints vjp_permute(N node, N g) {
  const auto& perm = node->attr<PermuteAttr>().perm;
  std::vector<int> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return {make_permute(g, inverse)};
}

// Sums over the new leading axes and over the size-1 axes that were broadcast.
Adjoints vjp_expand(N node, N g) {
  const Shape& in = x(node)->shape();
  const Shape& out = node->shape();
  const std::size_t lead = out.size() - in.size();
  std::vector<int> axes;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i < lead || (in[i - lead] == 1 && out[i] != 1)) axes.push_back(static_cast<int>(i));
  }
  if (axes.empty()) return {make_reshape(g, in)};
  return {make_reshape(make_reduce(Op::reduce_sum, g, axes, true), in)};
}

Adjoints vjp_slice(N node, N g) {
  const auto& slice = node->attr<SliceAttr>();
  const std::int64_t extent = x(node)->shape()[static_cast<std::size_t>(slice.axis)];
  Shape line(static_cast<std::size_t>(node->rank()), 1);
  line[static_cast<std::size_t>(slice.axis)] = slice.count;
  NodePtr positions;
  if (slice.count > 0) {
    positions = make_expand(
        make_reshape(make_iota(DType::i64, slice.count, static_cast<double>(slice.start),
                               static_cast<double>(slice.step)),
                     line),
        node->shape());
  }
  return {scatter_along_axis(g, positions, slice.axis, extent)};
}

// A sort's values come from the positions its argsort names (a topk keeps the first `count`).
Adjoints vjp_sort(N node, N g) {
  const auto& sort = node->attr<SortAttr>();
  const std::int64_t extent = x(node)->shape()[static_cast<std::size_t>(sort.axis)];
  NodePtr positions = node->numel() == 0
                          ? nullptr
                          : make_sort(Op::argsort, x(node), sort.axis, sort.descending, sort.count);
  return {scatter_along_axis(g, positions, sort.axis, extent)};
}

// take's adjoint is index_add, take_along_axis's scatter_add: g added at the indices into zeros of
// x's shape. The indices have no gradient.
Adjoints vjp_gather(N node, N g) {
  const auto& attr = node->attr<IndexAttr>();
  const IndexAttr adjoint{attr.axis, attr.index_axes,
                          attr.index_axes > 0 ? IndexOrigin::index_add : IndexOrigin::scatter_add};
  return {make_scatter_add(zeros(x(node)), y(node), g, adjoint), nullptr};
}

// The base passes g through; each value's gradient is g where it was added: a gather of g.
Adjoints vjp_scatter_add(N node, N g) {
  const auto& attr = node->attr<IndexAttr>();
  const IndexAttr adjoint{attr.axis, attr.index_axes,
                          attr.index_axes > 0 ? IndexOrigin::take : IndexOrigin::take_along_axis};
  return {g, nullptr, make_gather(g, y(node), adjoint)};
}

Adjoints vjp_cast(N node, N g) {
  if (!is_floating(x(node)->dtype())) return {nullptr};
  return {make_cast(g, x(node)->dtype())};
}

Adjoints vjp_abs(N node, N g) { return {mul(g, make_unary(Op::sign, x(node)))}; }
Adjoints vjp_square(N node, N g) { return {mul(g, scale(x(node), 2.0))}; }
Adjoints vjp_sqrt(N node, N g) { return {div(g, scale(node, 2.0))}; }
Adjoints vjp_rsqrt(N node, N g) {  // -0.5 * g * y^3
  return {mul(scale(g, -0.5), mul(mul(node, node), node))};
}
Adjoints vjp_reciprocal(N node, N g) { return {neg(mul(g, mul(node, node)))}; }
Adjoints vjp_exp(N node, N g) { return {mul(g, node)}; }
Adjoints vjp_exp2(N node, N g) { return {mul(g, scale(node, std::numbers::ln2))}; }
Adjoints vjp_expm1(N node, N g) { return {mul(g, add(node, constant(node, 1.0)))}; }
Adjoints vjp_log(N node, N g) { return {div(g, x(node))}; }
Adjoints vjp_log2(N node, N g) { return {div(g, scale(x(node), std::numbers::ln2))}; }
Adjoints vjp_log1p(N node, N g) { return {div(g, add(x(node), constant(node, 1.0)))}; }
Adjoints vjp_sin(N node, N g) { return {mul(g, make_unary(Op::cos, x(node)))}; }
Adjoints vjp_cos(N node, N g) { return {mul(g, neg(make_unary(Op::sin, x(node))))}; }
Adjoints vjp_tan(N node, N g) { return {mul(g, add(constant(node, 1.0), mul(node, node)))}; }
Adjoints vjp_atan(N node, N g) { return {div(g, add(constant(node, 1.0), mul(x(node), x(node))))}; }
Adjoints vjp_atan2(N node, N g) {  // atan2(a, b): (g b, -g a) / (a^2 + b^2), PyTorch's
  N a = x(node);
  N b = y(node);
  NodePtr squares = add(mul(a, a), mul(b, b));
  return {div(mul(g, b), squares), div(neg(mul(g, a)), squares)};
}
Adjoints vjp_tanh(N node, N g) { return {mul(g, sub(constant(node, 1.0), mul(node, node)))}; }
Adjoints vjp_sigmoid(N node, N g) { return {mul(g, mul(node, sub(constant(node, 1.0), node)))}; }
Adjoints vjp_erf(N node, N g) {  // 2/sqrt(pi) * exp(-x^2)
  NodePtr gaussian = make_unary(Op::exp, neg(mul(x(node), x(node))));
  return {mul(g, scale(gaussian, std::numbers::inv_sqrtpi * 2.0))};
}
Adjoints vjp_relu(N node, N g) {  // nothing at 0 (PyTorch's threshold_backward)
  return {where(compare(Op::gt, node, zeros(node)), g, zeros(g))};
}
Adjoints vjp_gelu(N node, N g) {  // cdf(x) + x * pdf(x)
  N v = x(node);
  NodePtr cdf = scale(add(constant(v, 1.0), make_unary(Op::erf, scale(v, kInverseSqrt2<double>))), 0.5);
  NodePtr pdf = scale(make_unary(Op::exp, scale(mul(v, v), -0.5)), std::numbers::inv_sqrtpi * kInverseSqrt2<double>);
  return {mul(g, add(cdf, mul(v, pdf)))};
}
Adjoints vjp_gelu_tanh(N node, N g) {  // PyTorch's GeluBackward with approximate='tanh'
  N v = x(node);
  NodePtr square = mul(v, v);
  NodePtr inner = scale(add(v, scale(mul(square, v), kGeluTanhCubic<double>)), kSqrt2OverPi<double>);
  NodePtr t = make_unary(Op::tanh, inner);
  NodePtr left_derivative = scale(add(constant(v, 1.0), t), 0.5);
  NodePtr right_derivative = mul(scale(v, 0.5), sub(constant(v, 1.0), mul(t, t)));
  NodePtr inner_derivative =
      scale(add(constant(v, 1.0), scale(square, 3.0 * kGeluTanhCubic<double>)), kSqrt2OverPi<double>);
  return {mul(g, add(left_derivative, mul(right_derivative, inner_derivative)))};
}
Adjoints vjp_silu(N node, N g) {  // s * (1 + x * (1 - s))
  NodePtr s = make_unary(Op::sigmoid, x(node));
  NodePtr one = constant(node, 1.0);
  return {mul(g, mul(s, add(one, mul(x(node), sub(one, s)))))};
}
Adjoints vjp_softplus(N node, N g) {  // sigmoid(x), and 1 above the threshold where softplus is x
  NodePtr linear = compare(Op::gt, x(node), constant(node, kSoftplusThreshold<double>));
  return {where(linear, g, mul(g, make_unary(Op::sigmoid, x(node))))};
}

Adjoints vjp_add(N, N g) { return {g, g}; }
Adjoints vjp_sub(N, N g) { return {g, neg(g)}; }
Adjoints vjp_mul(N node, N g) { return {mul(g, y(node)), mul(g, x(node))}; }
// d/da a/b = 1/b, d/db a/b = -(a/b)/b, both through one reciprocal: one division per element
// where there were two, and none per element when b is a row's broadcast value (the row kernel
// computes 1/b once per row), as in softmax's backward pass. PyTorch divides twice; the reciprocal
// costs at most one more rounding.
Adjoints vjp_div(N node, N g) {
  NodePtr reciprocal = make_unary(Op::reciprocal, y(node));
  return {mul(g, reciprocal), neg(mul(mul(g, node), reciprocal))};
}
Adjoints vjp_mod(N node, N g) {  // a - b*floor(a/b): d/db = -floor(a/b) = -(a - result)/b
  return {g, neg(mul(g, div(sub(x(node), node), y(node))))};
}
Adjoints vjp_pow(N node, N g) {  // PyTorch's pow_backward_self and pow_backward_exponent
  N a = x(node);
  N b = y(node);
  NodePtr zero = zeros(node);
  NodePtr power = make_binary(Op::pow, a, sub(b, constant(b, 1.0)));
  NodePtr da = where(compare(Op::eq, b, zero), zero, mul(g, mul(b, power)));
  NodePtr base_zero = Node::make(Op::logical_and, {compare(Op::eq, a, zero), compare(Op::ge, b, zero)});
  NodePtr db = where(base_zero, zero, mul(g, mul(node, make_unary(Op::log, a))));
  return {da, db};
}
// maximum and minimum: the operand that wins gets g, a tie gives each half (PyTorch); `loses`
// compares the operand that gets nothing.
Adjoints vjp_extremum(N node, N g, Op loses) {
  NodePtr half = where(compare(Op::eq, x(node), y(node)), scale(g, 0.5), g);
  NodePtr zero = zeros(g);
  return {where(compare(loses, x(node), y(node)), zero, half),
          where(compare(loses, y(node), x(node)), zero, half)};
}
Adjoints vjp_maximum(N node, N g) { return vjp_extremum(node, g, Op::lt); }
Adjoints vjp_minimum(N node, N g) { return vjp_extremum(node, g, Op::gt); }

Adjoints vjp_where(N node, N g) {
  NodePtr zero = zeros(g);
  return {nullptr, where(node->input(0), g, zero), where(node->input(0), zero, g)};
}

Adjoints vjp_reduce_sum(N node, N g) {
  if (!is_floating(x(node)->dtype())) return {nullptr};
  return {broadcast_back(node, g)};
}
// Each element gets g times the product of the others: result / x where x is not zero; with one
// zero in the reduced set, that zero gets the product of the rest and the others nothing; with two
// or more, everything gets zero (PyTorch's prod_backward).
Adjoints vjp_reduce_prod(N node, N g) {
  N v = x(node);
  if (!is_floating(v->dtype())) return {nullptr};
  const auto& attr = node->attr<ReduceAttr>();
  NodePtr zero = zeros(v);
  NodePtr is_zero = compare(Op::eq, v, zero);
  NodePtr zeros_in_set = broadcast_back(node, make_reduce(Op::reduce_sum, make_cast(is_zero, v->dtype()), attr.axes, attr.keepdims));
  NodePtr others = broadcast_back(node, make_reduce(Op::reduce_prod, where(is_zero, constant(v, 1.0), v), attr.axes, attr.keepdims));
  NodePtr gx = broadcast_back(node, g);
  NodePtr no_zero = mul(gx, div(broadcast_back(node, node), v));
  NodePtr one_zero = where(is_zero, mul(gx, others), zero);
  return {where(compare(Op::eq, zeros_in_set, zero), no_zero,
                where(compare(Op::eq, zeros_in_set, constant(v, 1.0)), one_zero, zero))};
}
// amax/amin: g shared evenly by the elements equal to the result (PyTorch's scale_grad_by_count).
Adjoints vjp_reduce_extremum(N node, N g) {
  N v = x(node);
  const auto& attr = node->attr<ReduceAttr>();
  NodePtr mask = make_cast(compare(Op::eq, v, broadcast_back(node, node)), v->dtype());
  NodePtr count = make_reduce(Op::reduce_sum, mask, attr.axes, attr.keepdims);
  return {mul(broadcast_back(node, div(g, count)), mask)};
}

// The reverse cumsum: flip, cumsum, flip.
Adjoints vjp_cumsum(N node, N g) {
  const int axis = node->attr<ScanAttr>().axis;
  const std::int64_t extent = node->shape()[static_cast<std::size_t>(axis)];
  if (extent <= 1) return {g};
  auto flip = [&](N value) { return Node::make(Op::slice, {value}, SliceAttr{axis, extent - 1, -1, extent}); };
  return {flip(make_cumsum(flip(g), axis))};
}

// [.., m, k] x [.., k, n]: products with transposed views, no copy.
Adjoints vjp_matmul(N node, N g) {
  std::vector<int> swap(static_cast<std::size_t>(node->rank()));
  for (std::size_t i = 0; i < swap.size(); ++i) swap[i] = static_cast<int>(i);
  std::swap(swap[swap.size() - 1], swap[swap.size() - 2]);
  return {make_binary(Op::matmul, g, make_permute(y(node), swap)),
          make_binary(Op::matmul, make_permute(x(node), swap), g)};
}

// Each operand's adjoint is its own stretch of g along the axis.
Adjoints vjp_concat(N node, N g) {
  const int axis = node->attr<ConcatAttr>().axis;
  Adjoints adjoints;
  std::int64_t start = 0;
  for (const auto& part : node->inputs()) {
    const std::int64_t extent = part->shape()[static_cast<std::size_t>(axis)];
    adjoints.push_back(make_slice(g, axis, extent == 0 ? 0 : start, extent));
    start += extent;
  }
  return adjoints;
}

Adjoints vjp_identity(N, N g) { return {g}; }
Adjoints vjp_neg(N, N g) { return {neg(g)}; }
Adjoints vjp_zero(N node, N) { return {zeros(x(node))}; }

// ---- the table, in ops.def's order ----

constexpr VjpRow source(Op op) { return {op, VjpKind::source, nullptr, "a source"}; }
constexpr VjpRow rule(Op op, VjpRule f) { return {op, VjpKind::differentiable, f, ""}; }
constexpr VjpRow none(Op op, std::string_view reason) { return {op, VjpKind::none, nullptr, reason}; }

constexpr VjpRow kVjpTable[] = {
    source(Op::input),
    source(Op::constant),
    source(Op::iota),
    rule(Op::reshape, vjp_reshape),
    rule(Op::permute, vjp_permute),
    rule(Op::expand, vjp_expand),
    rule(Op::slice, vjp_slice),
    rule(Op::copy, vjp_identity),
    none(Op::detach, "detach stops gradients"),
    rule(Op::cast, vjp_cast),
    rule(Op::neg, vjp_neg),
    rule(Op::abs, vjp_abs),
    rule(Op::sign, vjp_zero),  // piecewise constant: gradient 0 (PyTorch)
    rule(Op::square, vjp_square),
    rule(Op::sqrt, vjp_sqrt),
    rule(Op::rsqrt, vjp_rsqrt),
    rule(Op::reciprocal, vjp_reciprocal),
    rule(Op::exp, vjp_exp),
    rule(Op::exp2, vjp_exp2),
    rule(Op::expm1, vjp_expm1),
    rule(Op::log, vjp_log),
    rule(Op::log2, vjp_log2),
    rule(Op::log1p, vjp_log1p),
    rule(Op::sin, vjp_sin),
    rule(Op::cos, vjp_cos),
    rule(Op::tanh, vjp_tanh),
    rule(Op::sigmoid, vjp_sigmoid),
    rule(Op::erf, vjp_erf),
    rule(Op::relu, vjp_relu),
    rule(Op::gelu, vjp_gelu),
    rule(Op::gelu_tanh, vjp_gelu_tanh),
    rule(Op::silu, vjp_silu),
    rule(Op::softplus, vjp_softplus),
    none(Op::logical_not, "a boolean result"),
    rule(Op::floor, vjp_zero),  // piecewise constant: gradient 0 (PyTorch)
    rule(Op::ceil, vjp_zero),
    rule(Op::round, vjp_zero),
    rule(Op::trunc, vjp_zero),
    none(Op::isnan, "a boolean result"),
    none(Op::isinf, "a boolean result"),
    none(Op::isfinite, "a boolean result"),
    rule(Op::tan, vjp_tan),
    rule(Op::atan, vjp_atan),
    rule(Op::add, vjp_add),
    rule(Op::sub, vjp_sub),
    rule(Op::mul, vjp_mul),
    rule(Op::div, vjp_div),
    rule(Op::mod, vjp_mod),
    rule(Op::pow, vjp_pow),
    rule(Op::maximum, vjp_maximum),
    rule(Op::minimum, vjp_minimum),
    none(Op::eq, "a comparison"),
    none(Op::ne, "a comparison"),
    none(Op::lt, "a comparison"),
    none(Op::le, "a comparison"),
    none(Op::gt, "a comparison"),
    none(Op::ge, "a comparison"),
    none(Op::logical_and, "a boolean result"),
    none(Op::logical_or, "a boolean result"),
    none(Op::bitwise_and, "an integer result"),
    none(Op::bitwise_or, "an integer result"),
    none(Op::bitwise_xor, "an integer result"),
    none(Op::left_shift, "an integer result"),
    none(Op::right_shift, "an integer result"),
    rule(Op::atan2, vjp_atan2),
    none(Op::philox, "an integer result"),
    rule(Op::where, vjp_where),
    rule(Op::reduce_sum, vjp_reduce_sum),
    rule(Op::reduce_prod, vjp_reduce_prod),
    rule(Op::reduce_max, vjp_reduce_extremum),
    rule(Op::reduce_min, vjp_reduce_extremum),
    none(Op::argmax, "an index result"),
    none(Op::argmin, "an index result"),
    none(Op::reduce_any, "a boolean result"),
    none(Op::reduce_all, "a boolean result"),
    rule(Op::cumsum, vjp_cumsum),
    rule(Op::sort, vjp_sort),
    none(Op::argsort, "an index result"),
    rule(Op::gather, vjp_gather),
    rule(Op::scatter_add, vjp_scatter_add),
    rule(Op::concat, vjp_concat),
    rule(Op::matmul, vjp_matmul),
};

// Every op of ops.def has its row, at its own index: a new op does not compile until it says how
// gradients pass through it.
constexpr bool rows_follow_ops() {
  for (int i = 0; i < kOpCount; ++i) {
    if (static_cast<int>(kVjpTable[i].op) != i) return false;
    if ((kVjpTable[i].kind == VjpKind::differentiable) != (kVjpTable[i].rule != nullptr)) return false;
    if ((kVjpTable[i].kind == VjpKind::source) != (info(kVjpTable[i].op).arity == 0)) return false;
  }
  return true;
}
static_assert(std::size(kVjpTable) == kOpCount, "ops.def changed: give the new op a row in kVjpTable");
static_assert(rows_follow_ops(), "kVjpTable: a row is out of ops.def's order, or its kind and rule disagree");

}  // namespace

const VjpRow& vjp_row(Op op) { return kVjpTable[static_cast<int>(op)]; }

}  // namespace tensorjit::ir
