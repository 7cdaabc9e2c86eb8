// canonicalize (canonicalize.hpp): one bottom-up walk. Each node, once its inputs are canonical,
// is folded if its operands are all constants, rewritten by the rule table until no rule applies,
// and then looked up in a table of the nodes already kept (hash-consing), so that a subexpression
// built twice becomes one node.
#include "ir/passes/canonicalize.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <unordered_map>
#include <vector>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/f32_form.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::ir {
namespace {

// ---- what the rules look at ----

using N = const Node&;
const NodePtr& x(N node) { return node.input(0); }
const NodePtr& y(N node) { return node.input(1); }
bool integral(N node) { return is_integer(node.input(0)->dtype()); }
bool floating(N node) { return is_floating(node.input(0)->dtype()); }

// The values the rules below compare constants with (is_value); where's rule reads a bool
// condition. A constant of any other value is never matched by a rule, so the runtime may pass it
// to a kernel as an argument instead of a literal (is_structural_constant).
constexpr double kRuleValues[] = {0.0, -0.0, 1.0};

// Whether `node` is a constant whose value is `value` in its dtype, bit for bit (so -0.0 is not 0).
bool is_value(const NodePtr& node, double value) {
  TJ_INTERNAL_CHECK(std::any_of(std::begin(kRuleValues), std::end(kRuleValues),
                                [&](double v) { return std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(value); }))
      << "canonicalize: a rule compares with " << value << ", which kRuleValues does not list";
  if (node->op() != Op::constant) return false;
  const Scalar& held = node->attr<ConstantAttr>().value;
  Scalar wanted = Scalar::of(node->dtype(), value);
  if (is_floating(node->dtype())) {
    return std::bit_cast<std::uint64_t>(held.f) == std::bit_cast<std::uint64_t>(wanted.f);
  }
  return held.i == wanted.i;
}

NodePtr zeros_like(N node) { return make_constant(node.dtype(), node.shape(), Scalar::of(node.dtype(), 0)); }

bool is_identity(const std::vector<int>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int>(i)) return false;
  }
  return true;
}

// ---- the rewrites longer than a line ----

// permute(permute(x, inner), outer) -> permute(x, composed): axis i of the result is axis
// inner[outer[i]] of x.
NodePtr merge_permutes(N node) {
  if (x(node)->op() != Op::permute) return nullptr;
  const auto& outer = node.attr<PermuteAttr>().perm;
  const auto& inner = x(node)->attr<PermuteAttr>().perm;
  std::vector<int> composed(outer.size());
  for (std::size_t i = 0; i < outer.size(); ++i) composed[i] = inner[outer[i]];
  return make_permute(x(*x(node)), composed);
}

// slice(slice(x)) along one axis: result[i] = x[start + outer.start*step + i*step*outer.step].
NodePtr merge_slices(N node) {
  if (x(node)->op() != Op::slice) return nullptr;
  const auto& outer = node.attr<SliceAttr>();
  const auto& inner = x(node)->attr<SliceAttr>();
  if (outer.axis != inner.axis) return nullptr;
  SliceAttr merged{inner.axis, inner.start, inner.step, outer.count};
  if (outer.count > 0) {
    std::int64_t shift = 0;
    if (__builtin_mul_overflow(outer.start, inner.step, &shift) ||
        __builtin_add_overflow(inner.start, shift, &merged.start) ||
        __builtin_mul_overflow(inner.step, outer.step, &merged.step)) {
      return nullptr;  // steps this large only come from hand-written text: leave them be
    }
  }
  return Node::make(Op::slice, {x(*x(node))}, merged);
}

bool is_full_slice(N node) {
  const auto& slice = node.attr<SliceAttr>();
  std::int64_t extent = x(node)->shape()[slice.axis];
  return slice.start == 0 && slice.count == extent && (slice.step == 1 || extent <= 1);
}

// Whether casting `from` to `to` keeps every value, so that casting back gives the same bits.
bool is_lossless_cast(DType from, DType to) {
  return from == DType::boolean || (from == DType::f32 && to == DType::f64) ||
         (from == DType::i32 && (to == DType::i64 || to == DType::f64));
}

// cast(cast(x, wider), x's dtype) -> x, when the inner cast loses nothing.
NodePtr drop_round_trip_cast(N node) {
  if (x(node)->op() != Op::cast) return nullptr;
  const NodePtr& original = x(*x(node));
  bool round_trip = original->dtype() == node.dtype() &&
                    is_lossless_cast(original->dtype(), x(node)->dtype());
  return round_trip ? original : nullptr;
}

// A reduction, scan, ordering, matmul or scatter_add of f16/bf16 -> the same op on f32 operands, rounded once
// (f32_form.hpp: the definition, which the interpreter evaluates): the kernels accumulate in f32.
NodePtr compute_in_f32(N node) { return has_f32_form(node) ? f32_form(node) : nullptr; }

// where with a constant condition picks one side.
NodePtr select_constant_condition(N node) {
  const NodePtr& condition = node.input(0);
  if (condition->op() != Op::constant) return nullptr;
  return condition->attr<ConstantAttr>().value.i != 0 ? node.input(1) : node.input(2);
}

// ---- the rule table: one rule a line, indexed by op, run by one fixed-point driver ----

// The replacement of a node, or null when the rule does not match. Every rule keeps each result
// bit for every input (see canonicalize.hpp); the comments say why where it is not obvious.
using Rewrite = NodePtr (*)(N node);
struct Rule {
  Op op;
  Rewrite rewrite;
};

// concat of operands some of which hold no element -> the concat of the others; an empty
// result -> an empty constant.
NodePtr drop_empty_parts(N node) {
  if (node.numel() == 0) return make_constant(node.dtype(), node.shape(), Scalar{});
  std::vector<NodePtr> kept;
  for (const auto& part : node.inputs())
    if (part->numel() > 0) kept.push_back(part);
  if (kept.size() == node.inputs().size()) return nullptr;
  return make_concat(std::move(kept), node.attr<ConcatAttr>().axis);
}

// concat of constants of one value (bitwise) -> that constant over the result's shape (a pad of
// a constant).
NodePtr join_equal_constants(N node) {
  const NodePtr& first = x(node);
  for (const auto& part : node.inputs())
    if (part->op() != Op::constant || !bit_equal(part->attr<ConstantAttr>().value, first->attr<ConstantAttr>().value))
      return nullptr;
  return make_constant(node.dtype(), node.shape(), first->attr<ConstantAttr>().value);
}

// slice(concat(..., p, ...)) along the concat's axis whose elements all lie in one operand p ->
// the slice of p (split of a concat; a pad's adjoint).
NodePtr slice_one_part(N node) {
  const NodePtr& joined = x(node);
  const auto& slice = node.attr<SliceAttr>();
  if (joined->op() != Op::concat || joined->attr<ConcatAttr>().axis != slice.axis || slice.count == 0) return nullptr;
  const std::int64_t first = slice.start, last = slice.start + (slice.count - 1) * slice.step;
  std::int64_t begin = 0;
  for (const auto& part : joined->inputs()) {
    const std::int64_t end = begin + part->shape()[static_cast<std::size_t>(slice.axis)];
    if (std::min(first, last) >= begin && std::max(first, last) < end)
      return Node::make(Op::slice, {part}, SliceAttr{slice.axis, slice.start - begin, slice.step, slice.count});
    begin = end;
  }
  return nullptr;
}

const Rule kRules[] = {
    {Op::mul, [](N n) { return is_value(y(n), 1) ? x(n) : nullptr; }},                     // x*1 -> x
    {Op::mul, [](N n) { return is_value(x(n), 1) ? y(n) : nullptr; }},                     // 1*x -> x
    {Op::mul, [](N n) { return integral(n) && is_value(y(n), 0) ? y(n) : nullptr; }},      // x*0 -> 0, integers (NaN*0, -1*0.0 differ)
    {Op::mul, [](N n) { return integral(n) && is_value(x(n), 0) ? x(n) : nullptr; }},      // 0*x -> 0, integers
    {Op::add, [](N n) { return integral(n) && is_value(y(n), 0) ? x(n) : nullptr; }},      // x+0 -> x, integers (-0.0 + 0.0 is 0.0)
    {Op::add, [](N n) { return integral(n) && is_value(x(n), 0) ? y(n) : nullptr; }},      // 0+x -> x, integers
    {Op::add, [](N n) { return floating(n) && is_value(y(n), -0.0) ? x(n) : nullptr; }},   // x+(-0.0) -> x, floats
    {Op::add, [](N n) { return floating(n) && is_value(x(n), -0.0) ? y(n) : nullptr; }},   // (-0.0)+x -> x, floats
    {Op::sub, [](N n) { return is_value(y(n), 0) ? x(n) : nullptr; }},                     // x-0 -> x (+0.0 only: x-(-0.0) is x+0.0)
    {Op::sub, [](N n) { return integral(n) && x(n) == y(n) ? zeros_like(n) : nullptr; }},  // x-x -> 0, integers (inf-inf is NaN)
    {Op::div, [](N n) { return is_value(y(n), 1) ? x(n) : nullptr; }},                     // x/1 -> x
    {Op::neg, [](N n) { return x(n)->op() == Op::neg ? x(*x(n)) : nullptr; }},             // -(-x) -> x (a sign flip; integers wrap back)
    {Op::abs, [](N n) { return x(n)->op() == Op::abs ? x(n) : nullptr; }},                 // abs(abs(x)) -> abs(x)
    {Op::abs, [](N n) { return x(n)->op() == Op::neg ? make_unary(Op::abs, x(*x(n))) : nullptr; }},  // abs(-x) -> abs(x)
    {Op::detach, [](N n) { return x(n); }},                                               // detach(x) -> x (it only stops gradients)
    {Op::logical_not, [](N n) { return x(n)->op() == Op::logical_not ? x(*x(n)) : nullptr; }},  // !!x -> x
    {Op::maximum, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                      // maximum(x, x) -> x
    {Op::minimum, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                      // minimum(x, x) -> x
    {Op::logical_and, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                  // x && x -> x
    {Op::logical_or, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                   // x || x -> x
    {Op::bitwise_and, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                  // x & x -> x
    {Op::bitwise_or, [](N n) { return x(n) == y(n) ? x(n) : nullptr; }},                   // x | x -> x
    {Op::bitwise_xor, [](N n) { return x(n) == y(n) ? zeros_like(n) : nullptr; }},         // x ^ x -> 0
    {Op::where, [](N n) { return n.input(1) == n.input(2) ? n.input(1) : nullptr; }},      // where(c, x, x) -> x
    {Op::where, select_constant_condition},                                                // where(true, a, b) -> a
    {Op::cast, [](N n) { return x(n)->dtype() == n.dtype() ? x(n) : nullptr; }},           // cast to x's dtype -> x
    {Op::cast, drop_round_trip_cast},                                                      // f32 -> f64 -> f32 -> x
    {Op::reshape, [](N n) { return x(n)->shape() == n.shape() ? x(n) : nullptr; }},        // reshape to x's shape -> x
    {Op::reshape, [](N n) { return x(n)->op() == Op::reshape ? make_reshape(x(*x(n)), n.shape()) : nullptr; }},  // reshape(reshape(x)) -> reshape(x)
    {Op::permute, [](N n) { return is_identity(n.attr<PermuteAttr>().perm) ? x(n) : nullptr; }},  // identity permute -> x
    {Op::permute, merge_permutes},                                                         // permute(permute(x)) -> permute(x)
    {Op::expand, [](N n) { return x(n)->shape() == n.shape() ? x(n) : nullptr; }},         // expand to x's shape -> x
    {Op::expand, [](N n) { return x(n)->op() == Op::expand ? make_expand(x(*x(n)), n.shape()) : nullptr; }},  // expand(expand(x)) -> expand(x)
    {Op::slice, [](N n) { return is_full_slice(n) ? x(n) : nullptr; }},                    // slice of the whole axis -> x
    {Op::slice, merge_slices},                                                             // slice(slice(x)) on one axis -> slice(x)
    {Op::slice, slice_one_part},                                                           // slice(concat(a, b)) inside b -> slice(b)
    {Op::concat, [](N n) { return n.inputs().size() == 1 ? x(n) : nullptr; }},             // concat(x) -> x
    {Op::concat, drop_empty_parts},                                                        // concat(a, [], b) -> concat(a, b)
    {Op::concat, join_equal_constants},                                                    // concat(c, c) -> c, one value
    {Op::reduce_sum, compute_in_f32},                                                      // sum(x: f16) -> cast(sum(cast(x, f32)), f16)
    {Op::reduce_prod, compute_in_f32},                                                     // likewise for every reduction,
    {Op::reduce_max, compute_in_f32},
    {Op::reduce_min, compute_in_f32},
    {Op::argmax, compute_in_f32},                                                          // (argmax: no cast back, i64)
    {Op::argmin, compute_in_f32},
    {Op::cumsum, compute_in_f32},                                                          // scan,
    {Op::sort, compute_in_f32},                                                            // ordering
    {Op::argsort, compute_in_f32},
    {Op::matmul, compute_in_f32},                                                          // product (one f32 FMA chain)
    {Op::scatter_add, compute_in_f32},                                                     // and scatter (a gather copies)
};

// kRules indexed by op, in table order.
const std::array<std::vector<Rewrite>, kOpCount>& rules_by_op() {
  static const auto table = [] {
    std::array<std::vector<Rewrite>, kOpCount> by_op;
    for (const Rule& rule : kRules) by_op[static_cast<int>(rule.op)].push_back(rule.rewrite);
    return by_op;
  }();
  return table;
}

// ---- constant folding ----

// A view of a constant, or an elementwise op of constants, as one constant; null otherwise.
NodePtr fold_constants(N node) {
  if (node.inputs().empty()) return nullptr;
  for (const auto& input : node.inputs()) {
    if (input->op() != Op::constant) return nullptr;
  }
  if (is_movement(node.op())) {
    return make_constant(node.dtype(), node.shape(), x(node)->attr<ConstantAttr>().value);
  }
  if (!is_elementwise(node.op())) return nullptr;
  std::vector<Scalar> operands;
  for (const auto& input : node.inputs()) operands.push_back(input->attr<ConstantAttr>().value);
  DType operand_dtype = node.input(node.op() == Op::where ? 1 : 0)->dtype();
  return make_constant(node.dtype(), node.shape(),
                       evaluate_scalar(node.op(), operand_dtype, node.dtype(), operands));
}

// ---- the fixed-point driver ----

class Canonicalizer {
 public:
  Graph run(const Graph& graph) {
    std::unordered_map<const Node*, NodePtr> replacement;
    for (const auto& node : topological_order(graph)) {
      std::vector<NodePtr> inputs;
      inputs.reserve(node->inputs().size());
      for (const auto& input : node->inputs()) inputs.push_back(replacement.at(input.get()));
      replacement[node.get()] = canonical(node->with_inputs(std::move(inputs)));
    }
    Graph result;
    for (const auto& output : graph.outputs) result.outputs.push_back(replacement.at(output.get()));
    return result;
  }

 private:
  // Rewrites a node whose inputs are canonical until neither folding nor a rule applies, then
  // returns the kept node equal to it. Every rewrite builds on canonical nodes only.
  NodePtr canonical(NodePtr node) {
    constexpr int kMaxRewrites = 64;  // far more than any chain of rules: a loop is a bug
    for (int rewrites = 0;; ++rewrites) {
      TJ_INTERNAL_CHECK(rewrites < kMaxRewrites)
          << "canonicalize: the rules do not reach a fixed point on a " << op_name(node->op())
          << " node";
      NodePtr next = fold_constants(*node);
      for (auto rewrite : rules_by_op()[static_cast<int>(node->op())]) {
        if (next) break;
        next = rewrite(*node);
      }
      if (!next || next == node) return intern(std::move(node));
      TJ_INTERNAL_CHECK(next->dtype() == node->dtype() && next->shape() == node->shape())
          << "canonicalize: a rewrite of " << op_name(node->op()) << " changed its type from "
          << dtype_name(node->dtype()) << shape_str(node->shape()) << " to "
          << dtype_name(next->dtype()) << shape_str(next->shape());
      node = with_canonical_inputs(std::move(next));
    }
  }

  bool is_kept(const NodePtr& node) const {
    auto bucket = kept_.find(node->hash());
    return bucket != kept_.end() &&
           std::find(bucket->second.begin(), bucket->second.end(), node) != bucket->second.end();
  }

  // A node a rule built: the new nodes under it (compute_in_f32's casts and op) made canonical
  // first, bottom-up; the rule's own operands are canonical already.
  NodePtr with_canonical_inputs(NodePtr node) {
    std::vector<NodePtr> inputs;
    bool changed = false;
    for (const NodePtr& input : node->inputs()) {
      inputs.push_back(is_kept(input) ? input : canonical(with_canonical_inputs(input)));
      changed = changed || inputs.back() != input;
    }
    return changed ? node->with_inputs(std::move(inputs)) : node;
  }

  // The kept node with the same op, dtype, shape, attributes and (canonical) inputs, or `node`.
  NodePtr intern(NodePtr node) {
    auto& bucket = kept_[node->hash()];
    for (const auto& other : bucket) {
      if (other == node ||
          (other->op() == node->op() && other->dtype() == node->dtype() &&
           other->shape() == node->shape() && other->inputs() == node->inputs() &&
           attrs_equal(other->attrs(), node->attrs()))) {
        return other;
      }
    }
    bucket.push_back(node);
    return node;
  }

  std::unordered_map<std::size_t, std::vector<NodePtr>> kept_;
};

}  // namespace

Graph canonicalize(const Graph& graph) { return Canonicalizer().run(graph); }

bool is_structural_constant(DType dtype, const Scalar& value) {
  if (dtype == DType::boolean) return true;
  // A power of two divides exactly as a multiplication by its reciprocal, which LLVM's instcombine
  // does for a literal: x / 1024 (a mean over 1024 elements) costs a multiply, not a division.
  if (is_floating(dtype) && std::isfinite(value.f) && value.f != 0) {
    int exponent = 0;
    if (std::abs(std::frexp(value.f, &exponent)) == 0.5) return true;
  }
  return std::any_of(std::begin(kRuleValues), std::end(kRuleValues), [&](double v) {
    return bit_equal(value, Scalar::of(dtype, v));
  });
}

}  // namespace tensorjit::ir
