// Tensor's metadata, views and reductions: each builds one checked node.
#include <tensorjit/functions.hpp>
#include <tensorjit/tensor.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::check_defined;
using detail::checked_axes;
using detail::checked_axis;
using detail::describe;
using detail::node_of;
using detail::wrap;

Tensor::Tensor() = default;
Tensor::Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

Tensor& Tensor::assign(const Tensor& value) & {
  check_defined(*this, "assign");
  check_defined(value, "assign");
  TJ_CHECK(value.rank() <= rank())
      << "assign: cannot broadcast " << describe(value) << " to " << describe(*this);
  for (int d = 0; d < value.rank(); ++d) {
    const std::int64_t from = value.shape()[static_cast<std::size_t>(d)];
    const std::int64_t to = shape()[static_cast<std::size_t>(rank() - value.rank() + d)];
    TJ_CHECK(from == to || from == 1) << "assign: cannot broadcast " << describe(value) << " to "
                                      << describe(*this);
  }
  Tensor result = value.astype(dtype()).expand(shape());
  // In place when no other Tensor shares this handle, and the executor finds that nothing else
  // can read the buffer's old contents (docs/contracts.md, contract 1, "assign"). A kernel must
  // compute the value for it to land in the buffer: an input, a view, a constant or a value
  // already computed is copied.
  if (impl_.use_count() == 1) {
    const ir::NodePtr node = node_of(result, "assign");
    if (ir::is_source(node->op()) || ir::is_movement(node->op()) || node->is_realized()) result = result.copy();
    const std::vector<detail::Donation> donations{{0, impl_, nullptr}};
    if (detail::evaluate(std::span(&result, 1), donations).front() == detail::Donated::in_place) return *this;
  }
  // Contiguous after the eval, whatever the plan made of the value (x.T * 1 is a view of x).
  result.eval();
  result = result.contiguous();
  result.eval();
  // A new impl, not a change to the shared one: copies of this handle keep the old node.
  impl_ = result.impl_;
  return *this;
}

const Shape& Tensor::shape() const {
  TJ_CHECK(impl_) << "shape: the tensor is empty (default-constructed); assign a value first";
  return impl_->shape;
}
DType Tensor::dtype() const {
  TJ_CHECK(impl_) << "dtype: the tensor is empty (default-constructed); assign a value first";
  return impl_->dtype;
}
int Tensor::rank() const {
  TJ_CHECK(impl_) << "rank: the tensor is empty (default-constructed); assign a value first";
  return static_cast<int>(impl_->shape.size());
}
std::int64_t Tensor::size() const { return node_of(*this, "size")->numel(); }

const Tensor& Tensor::eval() const {
  detail::evaluate(std::span(this, 1));
  return *this;
}

Tensor Tensor::astype(DType dtype) const {
  detail::check_dtype(dtype, "astype");
  auto node = node_of(*this, "astype");
  if (node->dtype() == dtype) return *this;
  return wrap(ir::make_cast(node, dtype));
}

// ---- views ----

Tensor Tensor::reshape(const Shape& shape) const {
  auto node = node_of(*this, "reshape");
  Shape resolved = shape;
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TJ_CHECK(inferred < 0) << "reshape: only one -1 may be inferred, got " << ir::shape_str(shape)
                             << " for " << describe(*this);
      inferred = static_cast<int>(i);
      continue;
    }
    TJ_CHECK(shape[i] >= 0) << "reshape: negative extent in " << ir::shape_str(shape) << " for "
                            << describe(*this);
    TJ_CHECK(!__builtin_mul_overflow(known, shape[i], &known))
        << "reshape: " << ir::shape_str(shape) << " has more elements than fit in int64";
  }
  if (inferred >= 0) {
    TJ_CHECK(known != 0 && node->numel() % known == 0)
        << "reshape: cannot infer the -1 of " << ir::shape_str(shape) << " for " << describe(*this)
        << " (" << node->numel() << " elements)";
    resolved[inferred] = node->numel() / known;
  }
  if (resolved == node->shape()) return *this;
  return wrap(ir::make_reshape(node, resolved));
}

Tensor Tensor::permute(const std::vector<std::int64_t>& axes) const {
  auto node = node_of(*this, "permute");
  TJ_CHECK(static_cast<int>(axes.size()) == node->rank())
      << "permute: [" << fmt::format("{}", fmt::join(axes, ", ")) << "] does not name each of the "
      << node->rank() << " axes of " << describe(*this);
  std::vector<int> perm;
  for (auto axis : axes) perm.push_back(checked_axis(axis, node->rank(), "permute", node->shape()));
  return wrap(ir::make_permute(node, perm));
}

Tensor Tensor::transpose() const {
  check_defined(*this, "transpose");
  std::vector<std::int64_t> axes;
  for (int d = rank() - 1; d >= 0; --d) axes.push_back(d);
  return permute(axes);
}

Tensor Tensor::transpose(std::int64_t axis0, std::int64_t axis1) const {
  check_defined(*this, "transpose");
  const int r = rank();
  int a = checked_axis(axis0, r, "transpose", shape());
  int b = checked_axis(axis1, r, "transpose", shape());
  std::vector<std::int64_t> axes;
  for (int d = 0; d < r; ++d) axes.push_back(d);
  std::swap(axes[a], axes[b]);
  return permute(axes);
}

Tensor Tensor::expand(const Shape& shape) const {
  auto node = node_of(*this, "expand");
  TJ_CHECK(shape.size() >= node->shape().size())
      << "expand: cannot broadcast " << describe(*this) << " to the lower rank " << ir::shape_str(shape);
  Shape resolved = shape;
  const std::size_t lead = shape.size() - node->shape().size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != -1) continue;
    TJ_CHECK(i >= lead) << "expand: -1 is only allowed for existing axes, got " << ir::shape_str(shape);
    resolved[i] = node->shape()[i - lead];
  }
  if (resolved == node->shape()) return *this;
  return wrap(ir::make_expand(node, resolved));
}

Tensor Tensor::slice(std::int64_t axis, std::optional<std::int64_t> start,
                     std::optional<std::int64_t> stop, std::int64_t step) const {
  auto node = node_of(*this, "slice");
  const int ax = checked_axis(axis, node->rank(), "slice", node->shape());
  TJ_CHECK(step != 0) << "slice: step must not be zero (axis " << axis << " of " << describe(*this) << ")";
  const std::int64_t n = node->shape()[ax];
  // Python's slice.indices(): negative bounds count from the end, then clamp.
  auto resolve = [&](std::optional<std::int64_t> bound, std::int64_t if_omitted) {
    if (!bound) return if_omitted;
    std::int64_t b = *bound;
    if (b < 0) b = b < -n ? (step < 0 ? -1 : 0) : b + n;
    else if (b >= n) b = step < 0 ? n - 1 : n;
    return b;
  };
  const std::int64_t first = resolve(start, step < 0 ? n - 1 : 0);
  const std::int64_t last = resolve(stop, step < 0 ? -1 : n);
  // len(range(first, last, step)) without overflow: first and last lie in [-1, n], so their
  // distance fits, and the step's magnitude (up to 2^63 for INT64_MIN) is taken unsigned;
  // `distance + step - 1` overflowed for a step near INT64_MAX.
  const std::uint64_t magnitude = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const std::int64_t distance = step > 0 ? last - first : first - last;
  const std::int64_t count =
      distance > 0 ? static_cast<std::int64_t>((static_cast<std::uint64_t>(distance) - 1) / magnitude + 1) : 0;
  // One element or none: the step moves nowhere, so it is stored as 1 (one node for every such
  // slice, and no stride times a huge step in the view).
  ir::SliceAttr attr{ax, count > 0 ? first : 0, count > 1 ? step : 1, count};
  return wrap(ir::Node::make(ir::Op::slice, {node}, attr));
}

Tensor Tensor::flip(std::int64_t axis) const {
  check_defined(*this, "flip");
  checked_axis(axis, rank(), "flip", shape());
  return slice(axis, std::nullopt, std::nullopt, -1);
}

Tensor Tensor::squeeze() const {
  check_defined(*this, "squeeze");
  Shape kept;
  for (auto e : shape())
    if (e != 1) kept.push_back(e);
  return reshape(kept);
}

Tensor Tensor::squeeze(std::int64_t axis) const {
  check_defined(*this, "squeeze");
  const int ax = checked_axis(axis, rank(), "squeeze", shape());
  TJ_CHECK(shape()[ax] == 1) << "squeeze: axis " << axis << " of " << describe(*this)
                             << " has extent " << shape()[ax] << ", not 1";
  Shape kept = shape();
  kept.erase(kept.begin() + ax);
  return reshape(kept);
}

Tensor Tensor::unsqueeze(std::int64_t axis) const {
  check_defined(*this, "unsqueeze");
  const int ax = checked_axis(axis, rank() + 1, "unsqueeze", shape());
  Shape grown = shape();
  grown.insert(grown.begin() + ax, 1);
  return wrap(ir::make_reshape(node_of(*this, "unsqueeze"), grown));
}

Tensor Tensor::contiguous() const {
  auto node = node_of(*this, "contiguous");
  const bool is_view = ir::is_movement(node->op());
  const bool strided_input = node->op() == ir::Op::input && !node->attr<ir::InputAttr>().layout.is_contiguous();
  if (!is_view && !strided_input) return *this;
  return copy();
}

Tensor Tensor::copy() const { return wrap(ir::make_unary(ir::Op::copy, node_of(*this, "copy"))); }

Tensor Tensor::detach() const { return wrap(ir::make_unary(ir::Op::detach, node_of(*this, "detach"))); }

// ---- reductions ----
namespace {

ir::ReductionMode to_ir(Reduction mode) {
  return mode == Reduction::fast ? ir::ReductionMode::fast : ir::ReductionMode::strict;
}

bool has_identity(ir::Op op) {
  return op == ir::Op::reduce_sum || op == ir::Op::reduce_prod || op == ir::Op::reduce_any ||
         op == ir::Op::reduce_all;
}

// `name` is the function the user called (sum, not reduce_sum): every error names it.
Tensor reduce(std::string_view name, const Tensor& x, ir::Op op, const std::vector<std::int64_t>& axes,
              bool keepdims, Reduction mode) {
  auto node = node_of(x, name);
  auto ax = checked_axes(axes, node->rank(), name, node->shape());
  for (int a : ax)
    TJ_CHECK(node->shape()[a] > 0 || has_identity(op))
        << name << ": cannot reduce the empty axis " << a << " of " << describe(x)
        << " (no identity for this reduction)";
  return wrap(ir::make_reduce(op, node, ax, keepdims, to_ir(mode)));
}

// The flattened tensor's argmax or argmin; an empty tensor has none.
Tensor flat_arg_reduce(std::string_view name, const Tensor& x, ir::Op op) {
  TJ_CHECK(node_of(x, name)->numel() > 0) << name << ": " << describe(x) << " has no elements";
  return reduce(name, x.reshape({-1}), op, {0}, false, Reduction::strict);
}

Tensor as_bool(const Tensor& x) { return x.dtype() == boolean ? x : x != 0; }

}  // namespace

Tensor Tensor::sum(Reduction mode) const { return sum({}, false, mode); }
Tensor Tensor::sum(const std::vector<std::int64_t>& axes, bool keepdims, Reduction mode) const {
  return reduce("sum", *this, ir::Op::reduce_sum, axes, keepdims, mode);
}
Tensor Tensor::prod(Reduction mode) const { return prod({}, false, mode); }
Tensor Tensor::prod(const std::vector<std::int64_t>& axes, bool keepdims, Reduction mode) const {
  return reduce("prod", *this, ir::Op::reduce_prod, axes, keepdims, mode);
}
Tensor Tensor::mean(Reduction mode) const { return mean({}, false, mode); }
Tensor Tensor::mean(const std::vector<std::int64_t>& axes, bool keepdims, Reduction mode) const {
  // numpy's mean: the sum divided by the count, in a floating dtype (integers and bool give f32).
  // f16 and bf16 divide the f32 sum and round once, as every reduction of theirs (contract 11):
  // a sum rounded to f16 first overflows where the mean does not.
  check_defined(*this, "mean");
  auto ax = checked_axes(axes, rank(), "mean", shape());
  Tensor x = is_floating(dtype()) && !is_storage_float(dtype()) ? *this : astype(f32);
  std::int64_t count = 1;
  for (int a : ax) count *= shape()[a];
  Tensor mean = x.sum(axes, keepdims, mode) / static_cast<double>(count);
  return is_storage_float(dtype()) ? mean.astype(dtype()) : mean;
}
Tensor Tensor::max() const { return max({}, false); }
Tensor Tensor::max(const std::vector<std::int64_t>& axes, bool keepdims) const {
  return reduce("max", *this, ir::Op::reduce_max, axes, keepdims, Reduction::strict);
}
Tensor Tensor::min() const { return min({}, false); }
Tensor Tensor::min(const std::vector<std::int64_t>& axes, bool keepdims) const {
  return reduce("min", *this, ir::Op::reduce_min, axes, keepdims, Reduction::strict);
}
Tensor Tensor::argmax() const { return flat_arg_reduce("argmax", *this, ir::Op::argmax); }
Tensor Tensor::argmax(std::int64_t axis, bool keepdims) const {
  return reduce("argmax", *this, ir::Op::argmax, {axis}, keepdims, Reduction::strict);
}
Tensor Tensor::argmin() const { return flat_arg_reduce("argmin", *this, ir::Op::argmin); }
Tensor Tensor::argmin(std::int64_t axis, bool keepdims) const {
  return reduce("argmin", *this, ir::Op::argmin, {axis}, keepdims, Reduction::strict);
}
Tensor Tensor::any() const { return any({}, false); }
Tensor Tensor::any(const std::vector<std::int64_t>& axes, bool keepdims) const {
  check_defined(*this, "any");
  checked_axes(axes, rank(), "any", shape());
  return reduce("any", as_bool(*this), ir::Op::reduce_any, axes, keepdims, Reduction::strict);
}
Tensor Tensor::all() const { return all({}, false); }
Tensor Tensor::all(const std::vector<std::int64_t>& axes, bool keepdims) const {
  check_defined(*this, "all");
  checked_axes(axes, rank(), "all", shape());
  return reduce("all", as_bool(*this), ir::Op::reduce_all, axes, keepdims, Reduction::strict);
}

}  // namespace tensorjit
