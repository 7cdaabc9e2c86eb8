// Node::make: the checks and the shape/dtype inference of every op, driven by the op table.
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/node.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

namespace tensorjit::ir {
namespace {

struct Inferred {
  DType dtype;
  Shape shape;
};

std::string describe(const NodePtr& node) {
  return fmt::format("{}{}", dtype_name(node->dtype()), shape_str(node->shape()));
}

std::string describe_inputs(const std::vector<NodePtr>& inputs) {
  std::vector<std::string> parts;
  for (const auto& in : inputs) parts.push_back(describe(in));
  return fmt::format("({})", fmt::join(parts, ", "));
}

bool operand_kind_allows(OperandKind kind, DType dtype) {
  switch (kind) {
    case OperandKind::any: return true;
    case OperandKind::numeric: return !is_bool(dtype);
    case OperandKind::floating: return is_floating(dtype);
    case OperandKind::integer: return is_integer(dtype);
    case OperandKind::boolean: return is_bool(dtype);
    case OperandKind::wide: return dtype == DType::i64;
  }
  return false;
}

std::string_view operand_kind_name(OperandKind kind) {
  switch (kind) {
    case OperandKind::any: return "any dtype";
    case OperandKind::numeric: return "a numeric dtype (not bool)";
    case OperandKind::floating: return "a floating dtype (f32, f64, f16 or bf16)";
    case OperandKind::integer: return "an integer dtype (i32 or i64)";
    case OperandKind::boolean: return "bool";
    case OperandKind::wide: return "i64";
  }
  return "?";
}

void check_rank(Op op, const Shape& shape) {
  TJ_CHECK(shape.size() <= static_cast<std::size_t>(kMaxRank))
      << op_name(op) << ": shape " << shape_str(shape) << " has rank " << shape.size()
      << ", more than the maximum of " << kMaxRank;
  checked_numel(shape, op_name(op));
}

Inferred infer_source(Op op, const Attrs& attrs) {
  switch (op) {
    case Op::input: {
      const auto* a = std::get_if<InputAttr>(&attrs);
      TJ_CHECK(a) << "input: missing its buffer and layout";
      check_rank(op, a->layout.shape);
      TJ_CHECK(a->layout.strides.size() == a->layout.shape.size())
          << "input: strides " << shape_str(a->layout.strides) << " do not match shape "
          << shape_str(a->layout.shape);
      if (a->buffer && checked_numel(a->layout.shape, "input") > 0) {
        auto [low, high] = a->layout.extent();
        const auto elements = static_cast<std::int64_t>(a->buffer->bytes() / itemsize(a->dtype));
        TJ_CHECK(low >= 0 && high <= elements)
            << "input: a " << dtype_name(a->dtype) << shape_str(a->layout.shape) << " view with strides "
            << shape_str(a->layout.strides) << " and offset " << a->layout.offset
            << " reaches elements [" << low << ", " << high << ") of a buffer of " << elements
            << " elements; pass strides and an offset that stay inside the buffer";
      }
      return {a->dtype, a->layout.shape};
    }
    case Op::constant: {
      const auto* a = std::get_if<ConstantAttr>(&attrs);
      TJ_CHECK(a) << "constant: missing its value";
      check_rank(op, a->shape);
      return {a->dtype, a->shape};
    }
    case Op::iota: {
      const auto* a = std::get_if<IotaAttr>(&attrs);
      TJ_CHECK(a) << "iota: missing start, step and layout";
      check_rank(op, a->layout.shape);
      TJ_CHECK(a->layout.strides.size() == a->layout.shape.size())
          << "iota: strides " << shape_str(a->layout.strides) << " do not match shape "
          << shape_str(a->layout.shape);
      TJ_CHECK(std::isfinite(a->start) && std::isfinite(a->step))
          << "iota: start " << a->start << " and step " << a->step << " must be finite";
      TJ_CHECK(a->layout.extent().first >= 0)
          << "iota: the layout with strides " << shape_str(a->layout.strides) << " and offset "
          << a->layout.offset << " reaches a negative element offset; an iota's offsets are those of a "
          << "view of a 1-D iota, from 0 up";
      return {a->dtype, a->layout.shape};
    }
    default: break;
  }
  TJ_FAIL() << op_name(op) << " is not a source op";
}

Inferred infer_movement(Op op, const NodePtr& x, const Attrs& attrs) {
  const Shape& in = x->shape();
  const int rank = x->rank();
  switch (op) {
    case Op::reshape: {
      const auto* a = std::get_if<ShapeAttr>(&attrs);
      TJ_CHECK(a) << "reshape: missing the target shape";
      check_rank(op, a->shape);
      TJ_CHECK(checked_numel(a->shape, "reshape") == x->numel())
          << "reshape: cannot reshape " << describe(x) << " (" << x->numel() << " elements) to "
          << shape_str(a->shape) << " (" << checked_numel(a->shape, "reshape") << " elements)";
      return {x->dtype(), a->shape};
    }
    case Op::permute: {
      const auto* a = std::get_if<PermuteAttr>(&attrs);
      TJ_CHECK(a) << "permute: missing the permutation";
      std::vector<int> sorted = a->perm;
      std::sort(sorted.begin(), sorted.end());
      bool valid = static_cast<int>(sorted.size()) == rank;
      for (int i = 0; valid && i < rank; ++i) valid = sorted[i] == i;
      TJ_CHECK(valid) << "permute: [" << fmt::format("{}", fmt::join(a->perm, ", "))
                      << "] is not a permutation of the " << rank << " axes of " << describe(x);
      Shape out(rank);
      for (int i = 0; i < rank; ++i) out[i] = in[a->perm[i]];
      return {x->dtype(), out};
    }
    case Op::expand: {
      const auto* a = std::get_if<ShapeAttr>(&attrs);
      TJ_CHECK(a) << "expand: missing the target shape";
      check_rank(op, a->shape);
      const std::size_t out_rank = a->shape.size();
      bool valid = out_rank >= in.size();
      for (std::size_t i = 0; valid && i < in.size(); ++i) {
        std::int64_t from = in[i], to = a->shape[out_rank - in.size() + i];
        valid = from == to || from == 1;
      }
      TJ_CHECK(valid) << "expand: cannot broadcast " << describe(x) << " to " << shape_str(a->shape)
                      << " (only size-1 axes expand, and new axes go in front)";
      return {x->dtype(), a->shape};
    }
    case Op::slice: {
      const auto* a = std::get_if<SliceAttr>(&attrs);
      TJ_CHECK(a) << "slice: missing axis, start, step and count";
      TJ_CHECK(a->axis >= 0 && a->axis < rank)
          << "slice: axis " << a->axis << " is out of range for " << describe(x);
      TJ_CHECK(a->step != 0) << "slice: step must not be zero";
      TJ_CHECK(a->count >= 0) << "slice: negative count " << a->count;
      if (a->count > 0) {
        std::int64_t last = 0;
        bool overflow = __builtin_mul_overflow(a->count - 1, a->step, &last) ||
                        __builtin_add_overflow(last, a->start, &last);
        TJ_CHECK(!overflow && a->start >= 0 && a->start < in[a->axis] && last >= 0 &&
                 last < in[a->axis])
            << "slice: start " << a->start << ", step " << a->step << " and count " << a->count
            << " leave axis " << a->axis << " of " << describe(x);
      }
      Shape out = in;
      out[a->axis] = a->count;
      return {x->dtype(), out};
    }
    default: break;
  }
  TJ_FAIL() << op_name(op) << " is not a movement op";
}

Inferred infer_reduce(Op op, const NodePtr& x, const Attrs& attrs) {
  const auto* a = std::get_if<ReduceAttr>(&attrs);
  TJ_CHECK(a) << op_name(op) << ": missing its axes";
  for (std::size_t i = 0; i < a->axes.size(); ++i) {
    TJ_CHECK(a->axes[i] >= 0 && a->axes[i] < x->rank())
        << op_name(op) << ": axis " << a->axes[i] << " is out of range for " << describe(x);
    TJ_CHECK(i == 0 || a->axes[i - 1] < a->axes[i])
        << op_name(op) << ": axes must be sorted and unique, got ["
        << fmt::format("{}", fmt::join(a->axes, ", ")) << "]";
  }
  if (op == Op::argmax || op == Op::argmin) {
    TJ_CHECK(a->axes.size() == 1) << op_name(op) << ": takes exactly one axis, got "
                                  << a->axes.size() << " for " << describe(x);
  }
  Shape out;
  for (int d = 0; d < x->rank(); ++d) {
    bool reduced = std::binary_search(a->axes.begin(), a->axes.end(), d);
    if (!reduced) {
      out.push_back(x->shape()[d]);
    } else {
      TJ_CHECK(x->shape()[d] > 0 || op == Op::reduce_sum || op == Op::reduce_prod ||
               op == Op::reduce_any || op == Op::reduce_all)
          << op_name(op) << ": cannot reduce the empty axis " << d << " of " << describe(x)
          << " (no identity for this reduction)";
      if (a->keepdims) out.push_back(1);
    }
  }
  return {reduce_result_dtype(op, x->dtype()), out};
}

Inferred infer_scan(Op op, const NodePtr& x, const Attrs& attrs) {
  const auto* a = std::get_if<ScanAttr>(&attrs);
  TJ_CHECK(a) << op_name(op) << ": missing its axis";
  TJ_CHECK(a->axis >= 0 && a->axis < x->rank())
      << op_name(op) << ": axis " << a->axis << " is out of range for " << describe(x);
  return {scan_result_dtype(x->dtype()), x->shape()};
}

Inferred infer_order(Op op, const NodePtr& x, const Attrs& attrs) {
  const auto* a = std::get_if<SortAttr>(&attrs);
  TJ_CHECK(a) << op_name(op) << ": missing its axis, direction and count";
  TJ_CHECK(a->axis >= 0 && a->axis < x->rank())
      << op_name(op) << ": axis " << a->axis << " is out of range for " << describe(x);
  const std::int64_t extent = x->shape()[a->axis];
  TJ_CHECK(a->count >= 0 && a->count <= extent)
      << op_name(op) << ": count " << a->count << " is outside [0, " << extent << "], the extent of axis "
      << a->axis << " of " << describe(x);
  Shape out = x->shape();
  out[a->axis] = a->count;
  return {op == Op::argsort ? DType::i64 : x->dtype(), out};
}

// gather(x, indices) and scatter_add(base, indices, values): along-axis semantics (ops.def); the
// indices' shape equals x's (base's) but along the axis, and values have the indices' shape.
Inferred infer_indexing(Op op, const std::vector<NodePtr>& inputs, const Attrs& attrs) {
  const auto* a = std::get_if<IndexAttr>(&attrs);
  TJ_CHECK(a) << op_name(op) << ": missing its axis";
  const NodePtr& x = inputs[0];
  const NodePtr& indices = inputs[1];
  TJ_CHECK(a->axis >= 0 && a->axis < x->rank())
      << op_name(op) << ": axis " << a->axis << " is out of range for " << describe(x);
  TJ_CHECK(a->index_axes >= 0 && a->index_axes <= a->axis + 1)
      << op_name(op) << ": " << a->index_axes << " index axes cannot end at axis " << a->axis;
  TJ_CHECK(is_integer(indices->dtype()))
      << op_name(op) << ": indices must be i32 or i64, got " << describe_inputs(inputs);
  TJ_CHECK(operand_kind_allows(info(op).operands, x->dtype()))
      << op_name(op) << ": needs " << operand_kind_name(info(op).operands) << ", got " << describe_inputs(inputs);
  bool matches = indices->rank() == x->rank();
  for (int d = 0; matches && d < x->rank(); ++d) matches = d == a->axis || indices->shape()[d] == x->shape()[d];
  TJ_CHECK(matches) << op_name(op) << ": indices " << describe(indices) << " must have the shape of "
                    << describe(x) << " but along axis " << a->axis << " (broadcast them first)";
  if (op == Op::gather) return {x->dtype(), indices->shape()};
  const NodePtr& values = inputs[2];
  TJ_CHECK(values->dtype() == x->dtype() && values->shape() == indices->shape())
      << "scatter_add: values " << describe(values) << " must have the dtype of the base "
      << describe(x) << " and the shape of the indices " << describe(indices);
  return {x->dtype(), x->shape()};
}

// concat: one dtype (the API promotes first), one rank of at least 1, equal extents but along the
// axis, whose extents add up.
Inferred infer_concat(const std::vector<NodePtr>& inputs, const Attrs& attrs) {
  const auto* a = std::get_if<ConcatAttr>(&attrs);
  TJ_CHECK(a) << "concat: missing its axis";
  const NodePtr& first = inputs[0];
  TJ_CHECK(a->axis >= 0 && a->axis < first->rank())
      << "concat: axis " << a->axis << " is out of range for " << describe(first)
      << (first->rank() == 0 ? " (a 0-d value has no axis to join along; reshape it to [1] first)" : "");
  Shape out = first->shape();
  out[static_cast<std::size_t>(a->axis)] = 0;
  for (const auto& in : inputs) {
    TJ_CHECK(in->dtype() == first->dtype())
        << "concat: operands must have one dtype (promote with cast first), got " << describe_inputs(inputs);
    bool matches = in->rank() == first->rank();
    for (int d = 0; matches && d < first->rank(); ++d) matches = d == a->axis || in->shape()[d] == first->shape()[d];
    TJ_CHECK(matches) << "concat: operands must have one shape but along axis " << a->axis << ", got "
                      << describe_inputs(inputs);
    std::int64_t& extent = out[static_cast<std::size_t>(a->axis)];
    TJ_CHECK(!__builtin_add_overflow(extent, in->shape()[static_cast<std::size_t>(a->axis)], &extent))
        << "concat: the extents along axis " << a->axis << " of " << describe_inputs(inputs) << " overflow int64";
  }
  return {first->dtype(), out};
}

Inferred infer_matmul(const NodePtr& a, const NodePtr& b) {
  TJ_CHECK(a->rank() >= 2 && b->rank() >= 2 && a->rank() == b->rank())
      << "matmul: operands " << describe(a) << " and " << describe(b)
      << " must both have rank >= 2 and equal rank in the IR";
  const int r = a->rank();
  TJ_CHECK(a->shape()[r - 1] == b->shape()[r - 2])
      << "matmul: inner dimensions differ: " << describe(a) << " @ " << describe(b);
  for (int d = 0; d < r - 2; ++d)
    TJ_CHECK(a->shape()[d] == b->shape()[d])
        << "matmul: batch dimensions differ: " << describe(a) << " @ " << describe(b);
  Shape out = a->shape();
  out[r - 1] = b->shape()[r - 1];
  return {a->dtype(), out};
}

Inferred infer(Op op, const std::vector<NodePtr>& inputs, const Attrs& attrs) {
  const OpInfo& oi = info(op);
  TJ_CHECK(arity_allows(op, inputs.size()))
      << oi.name << ": takes " << (oi.arity < 0 ? std::string("one or more") : std::to_string(oi.arity))
      << " inputs, got " << inputs.size();
  for (const auto& in : inputs) TJ_CHECK(in) << oi.name << ": an input is null";

  if (oi.category == OpCategory::source) return infer_source(op, attrs);
  if (oi.category == OpCategory::indexing) return infer_indexing(op, inputs, attrs);
  if (oi.category == OpCategory::join) return infer_concat(inputs, attrs);

  // Elementwise operands (all but where's condition) share one dtype and one shape.
  const std::size_t first = op == Op::where ? 1 : 0;
  if (op == Op::where) {
    TJ_CHECK(inputs[0]->dtype() == DType::boolean)
        << "where: the condition must be bool, got " << describe_inputs(inputs);
  }
  for (std::size_t i = first; i < inputs.size(); ++i) {
    TJ_CHECK(operand_kind_allows(oi.operands, inputs[i]->dtype()))
        << oi.name << ": needs " << operand_kind_name(oi.operands) << ", got "
        << describe_inputs(inputs);
    if (oi.category != OpCategory::movement && oi.category != OpCategory::reduce &&
        oi.category != OpCategory::scan && oi.category != OpCategory::order) {
      TJ_CHECK(inputs[i]->dtype() == inputs[first]->dtype())
          << oi.name << ": operands must have one dtype (promote with cast first), got "
          << describe_inputs(inputs);
    }
  }

  switch (oi.category) {
    case OpCategory::movement: return infer_movement(op, inputs[0], attrs);
    case OpCategory::reduce: return infer_reduce(op, inputs[0], attrs);
    case OpCategory::scan: return infer_scan(op, inputs[0], attrs);
    case OpCategory::order: return infer_order(op, inputs[0], attrs);
    case OpCategory::contraction: return infer_matmul(inputs[0], inputs[1]);
    default: break;
  }
  for (const auto& in : inputs)
    TJ_CHECK(in->shape() == inputs[0]->shape())
        << oi.name << ": operands must have one shape (broadcast with expand first), got "
        << describe_inputs(inputs);
  DType dtype = inputs[first]->dtype();
  if (oi.result == ResultKind::boolean) dtype = DType::boolean;
  if (oi.result == ResultKind::word) dtype = DType::i32;
  if (op == Op::cast) {
    const auto* a = std::get_if<CastAttr>(&attrs);
    TJ_CHECK(a) << "cast: missing the target dtype";
    dtype = a->dtype;
  }
  return {dtype, inputs[0]->shape()};
}

// Every node's element count, and its size in bytes, fit in int64, whatever op made it: numel()
// and the runtime's sizes, byte counts and offsets are int64 arithmetic that trusts them (a
// [2^32, 3] @ [3, 2^32] matmul once wrapped to 0 elements, and zeros({2^62}) to 0 bytes). As in
// numpy, a view is held to it too: any eval of it would allocate that many bytes.
void check_result_size(Op op, const std::vector<NodePtr>& inputs, const Inferred& result) {
  std::int64_t numel = 1;
  bool elements_fit = true;
  for (auto extent : result.shape) elements_fit = elements_fit && !__builtin_mul_overflow(numel, extent, &numel);
  const auto size = static_cast<std::int64_t>(itemsize(result.dtype));
  std::int64_t bytes = 0;
  if (elements_fit && !__builtin_mul_overflow(numel, size, &bytes)) return;
  TJ_FAIL() << op_name(op) << ": the result " << dtype_name(result.dtype) << shape_str(result.shape)
            << (inputs.empty() ? "" : " of " + describe_inputs(inputs))
            << (elements_fit ? fmt::format(" is too large to allocate: {} elements of {} bytes are more than "
                                           "2^63 - 1 bytes; make the shapes smaller",
                                           numel, size)
                             : " has more elements than fit in int64 (at most 2^63 - 1); make the shapes smaller");
}

template <typename T> void hash_combine(std::size_t& seed, const T& value) {
  seed ^= std::hash<T>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

void hash_ints(std::size_t& seed, std::span<const std::int64_t> values) {
  for (auto v : values) hash_combine(seed, v);
}

std::size_t hash_attrs(const Attrs& attrs) {
  std::size_t seed = attrs.index();
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, InputAttr>) {
          hash_combine(seed, a.id);
          hash_ints(seed, a.layout.strides);
          hash_combine(seed, a.layout.offset);
        } else if constexpr (std::is_same_v<A, ConstantAttr>) {
          hash_combine(seed, std::bit_cast<std::uint64_t>(a.value.f));
          hash_combine(seed, a.value.i);
        } else if constexpr (std::is_same_v<A, IotaAttr>) {
          hash_combine(seed, std::bit_cast<std::uint64_t>(a.start));
          hash_combine(seed, std::bit_cast<std::uint64_t>(a.step));
          hash_ints(seed, a.layout.strides);
          hash_combine(seed, a.layout.offset);
        } else if constexpr (std::is_same_v<A, PermuteAttr>) {
          for (int p : a.perm) hash_combine(seed, p);
        } else if constexpr (std::is_same_v<A, SliceAttr>) {
          hash_combine(seed, a.axis);
          hash_combine(seed, a.start);
          hash_combine(seed, a.step);
        } else if constexpr (std::is_same_v<A, ReduceAttr>) {
          for (int ax : a.axes) hash_combine(seed, ax);
          hash_combine(seed, a.keepdims);
          hash_combine(seed, static_cast<int>(a.mode));
        } else if constexpr (std::is_same_v<A, ScanAttr>) {
          hash_combine(seed, a.axis);
        } else if constexpr (std::is_same_v<A, SortAttr>) {
          hash_combine(seed, a.axis);
          hash_combine(seed, a.descending);
          hash_combine(seed, a.count);
        } else if constexpr (std::is_same_v<A, IndexAttr>) {
          hash_combine(seed, a.axis);
          hash_combine(seed, a.index_axes);
          hash_combine(seed, static_cast<int>(a.origin));
        } else if constexpr (std::is_same_v<A, ConcatAttr>) {
          hash_combine(seed, a.axis);
        }
      },
      attrs);
  return seed;
}

}  // namespace

double rounded_to(DType dtype, double value) {
  const float single = static_cast<float>(value);  // f16 and bf16 round through f32, as casts do
  switch (dtype) {
    case DType::f32: return single;
    case DType::f16: return static_cast<float>(float16_t(single));
    case DType::bf16: return static_cast<float>(bfloat16_t(single));
    default: return value;
  }
}

Scalar Scalar::of(DType dtype, double value) {
  Scalar s;
  if (is_floating(dtype)) {
    s.f = rounded_to(dtype, value);
  } else if (is_bool(dtype)) {
    s.i = value != 0 ? 1 : 0;
  } else {
    // Saturating, NaN -> 0: the semantics of cast, without undefined behaviour.
    const double lo = dtype == DType::i32 ? -2147483648.0 : -9223372036854775808.0;
    const double hi = dtype == DType::i32 ? 2147483648.0 : 9223372036854775808.0;
    if (std::isnan(value)) s.i = 0;
    else if (value <= lo) s.i = static_cast<std::int64_t>(lo);
    else if (value >= hi) s.i = dtype == DType::i32 ? 2147483647 : INT64_MAX;
    else s.i = static_cast<std::int64_t>(value);
  }
  return s;
}

Scalar Scalar::of_int(DType dtype, std::int64_t value) {
  Scalar s;
  if (is_floating(dtype)) {
    s.f = dtype == DType::f64 ? static_cast<double>(value)
                              : rounded_to(dtype, static_cast<double>(static_cast<float>(value)));
  } else if (is_bool(dtype)) {
    s.i = value != 0 ? 1 : 0;
  } else if (dtype == DType::i32) {
    s.i = static_cast<std::int32_t>(static_cast<std::uint32_t>(value));  // wraps, as casts do
  } else {
    s.i = value;
  }
  return s;
}

bool bit_equal(const Scalar& a, const Scalar& b) {
  return std::bit_cast<std::uint64_t>(a.f) == std::bit_cast<std::uint64_t>(b.f) && a.i == b.i;
}

std::uint64_t next_input_id() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

DType scan_result_dtype(DType dtype) { return is_floating(dtype) ? dtype : DType::i64; }

DType reduce_result_dtype(Op op, DType dtype) {
  switch (op) {
    case Op::reduce_sum:
    case Op::reduce_prod: return is_floating(dtype) ? dtype : DType::i64;
    case Op::argmax:
    case Op::argmin: return DType::i64;
    default: return dtype;
  }
}

Node::Node(MakeKey, Op op, DType dtype, Shape shape, std::vector<NodePtr> inputs, Attrs attrs)
    : op_(op), dtype_(dtype), shape_(std::move(shape)), inputs_(std::move(inputs)),
      attrs_(std::move(attrs)) {
  numel_ = 1;
  for (auto e : shape_) numel_ *= e;
  std::size_t seed = static_cast<std::size_t>(op_);
  hash_combine(seed, static_cast<int>(dtype_));
  hash_ints(seed, shape_);
  hash_combine(seed, hash_attrs(attrs_));
  for (const auto& in : inputs_) {
    hash_combine(seed, in->hash());
    in->consumers_.fetch_add(1, std::memory_order_relaxed);
  }
  hash_ = seed;
}

NodePtr Node::make(Op op, std::vector<NodePtr> inputs, Attrs attrs) {
  Inferred r = infer(op, inputs, attrs);
  check_result_size(op, inputs, r);
  return std::make_shared<const Node>(MakeKey{}, op, r.dtype, std::move(r.shape), std::move(inputs),
                                      std::move(attrs));
}

NodePtr Node::with_inputs(std::vector<NodePtr> inputs) const {
  if (inputs == inputs_) return shared_from_this();
  return make(op_, std::move(inputs), attrs_);
}

bool is_uniform(const Node& node) {
  if (node.op() == Op::constant) return true;
  if (node.op() != Op::input) return false;
  const auto& strides = node.attr<InputAttr>().layout.strides;
  return std::all_of(strides.begin(), strides.end(), [](std::int64_t s) { return s == 0; });
}

namespace {

// The locks of the nodes' realized values: one of 64, by the node's address, so that a node holds
// no lock of its own. Each is held only to copy or swap one shared_ptr, so it is a spin lock (an
// inlined exchange and store, where a std::mutex costs two calls into libc on every eval) that
// yields while another thread holds it. A value is destroyed after its lock is released: its
// buffer's owner callback may drop tensors, which may drop values.
class RealizedLock {
 public:
  explicit RealizedLock(const Node* node)
      : held_(stripes_[(reinterpret_cast<std::uintptr_t>(node) / alignof(std::max_align_t)) % 64].held) {
    while (held_.exchange(true, std::memory_order_acquire))
      while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  ~RealizedLock() { held_.store(false, std::memory_order_release); }
  RealizedLock(const RealizedLock&) = delete;
  RealizedLock& operator=(const RealizedLock&) = delete;

 private:
  struct alignas(64) Stripe {
    std::atomic<bool> held{false};
  };
  static Stripe stripes_[64];
  std::atomic<bool>& held_;
};

RealizedLock::Stripe RealizedLock::stripes_[64];

}  // namespace

std::shared_ptr<const Value> Node::realized() const {
  // Not realized: no lock. A value stored but not yet flagged, or flagged off but not yet
  // dropped, is one a reader a moment earlier or later would not see either.
  if (!is_realized()) return nullptr;
  const RealizedLock lock(this);
  return realized_;
}

void Node::set_realized(Value value) const {
  auto fresh = std::make_shared<const Value>(std::move(value));
  std::uint64_t before = 0;
  {
    // The value and the flag change together, as drop_value_if_unreachable clears them: a drop
    // between the two would leave the flag set over no value.
    const RealizedLock lock(this);
    realized_.swap(fresh);
    before = state_.fetch_or(kRealized, std::memory_order_acq_rel);
  }
  fresh.reset();  // the value it replaced, if any, outside the lock
  if (before & kRealized) return;
  // From now on walks stop here: the operands lose this node's claim.
  if (claims(before))
    for (const auto& in : inputs_) change_reach(in.get(), false);
  drop_value_if_unreachable();
}

void Node::add_holder() const {
  holders_.fetch_add(1, std::memory_order_relaxed);
  change_reach(this, true);
}

void Node::remove_holder() const {
  holders_.fetch_sub(1, std::memory_order_relaxed);
  change_reach(this, false);
}

namespace {

// The nodes a reach walk has still to visit: on the walk's own stack up to 32 (a walk stops at
// the first node whose claim does not change, so it rarely holds more than a node's operands),
// then on the heap. Last in, first out.
class PendingNodes {
 public:
  void push(const Node* node) {
    if (inline_count_ < kInline) inline_[inline_count_++] = node;
    else spilled_.push_back(node);
  }
  bool empty() const { return inline_count_ == 0 && spilled_.empty(); }
  const Node* pop() {
    if (spilled_.empty()) return inline_[--inline_count_];
    const Node* node = spilled_.back();
    spilled_.pop_back();
    return node;
  }

 private:
  static constexpr std::size_t kInline = 32;
  std::array<const Node*, kInline> inline_;
  std::size_t inline_count_ = 0;
  std::vector<const Node*> spilled_;
};

}  // namespace

void Node::change_reach(const Node* node, bool add) {
  // Every node reached is an operand of one reached before it, so the first node (which the
  // caller holds) keeps them all alive; a step changes values, never nodes. Every step of one
  // call goes the same way: a claim that starts adds to the operands, one that ends takes away.
  // The pending nodes are this call's own, on its stack: a call made while one runs (a buffer's
  // owner callback dropping a tensor) has its own too, and no thread_local is looked up (one
  // __tls_get_addr each in a shared library, twice per handle made or dropped).
  PendingNodes work;
  for (const Node* n = node;;) {
    const std::uint64_t before = add ? n->state_.fetch_add(kReach, std::memory_order_acq_rel)
                                     : n->state_.fetch_sub(kReach, std::memory_order_acq_rel);
    const std::uint64_t after = add ? before + kReach : before - kReach;
    if (claims(before) != claims(after))
      for (const auto& in : n->inputs_) work.push(in.get());
    if (!add && after == kRealized) n->drop_value_if_unreachable();
    if (work.empty()) break;
    n = work.pop();
  }
}

void Node::drop_value_if_unreachable() const {
  // Realized with no reach: nothing can read the value again. An eval that already walked here
  // holds it through the input node it made of it; one that looks after this finds the node not
  // realized and computes it from its operands (the change claims nothing: a node out of reach
  // claims nothing, realized or not).
  if (state_.load(std::memory_order_relaxed) != kRealized) return;
  std::shared_ptr<const Value> dropped;  // destroyed after the lock
  const RealizedLock lock(this);
  // Under the lock, so that a concurrent set_realized's value cannot be stored between the flag
  // going off and the value being dropped.
  std::uint64_t expected = kRealized;
  if (!state_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  dropped.swap(realized_);
}

bool attrs_equal(const Attrs& a, const Attrs& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using A = std::decay_t<decltype(x)>;
        const auto& y = std::get<A>(b);
        if constexpr (std::is_same_v<A, std::monostate>) {
          return true;
        } else if constexpr (std::is_same_v<A, InputAttr>) {
          return x.id == y.id && x.buffer == y.buffer && x.dtype == y.dtype && x.layout == y.layout;
        } else if constexpr (std::is_same_v<A, ConstantAttr>) {
          return x.dtype == y.dtype && x.shape == y.shape && bit_equal(x.value, y.value);
        } else if constexpr (std::is_same_v<A, IotaAttr>) {
          return x.dtype == y.dtype && x.layout == y.layout &&
                 std::bit_cast<std::uint64_t>(x.start) == std::bit_cast<std::uint64_t>(y.start) &&
                 std::bit_cast<std::uint64_t>(x.step) == std::bit_cast<std::uint64_t>(y.step);
        } else if constexpr (std::is_same_v<A, ShapeAttr>) {
          return x.shape == y.shape;
        } else if constexpr (std::is_same_v<A, PermuteAttr>) {
          return x.perm == y.perm;
        } else if constexpr (std::is_same_v<A, SliceAttr>) {
          return x.axis == y.axis && x.start == y.start && x.step == y.step && x.count == y.count;
        } else if constexpr (std::is_same_v<A, CastAttr>) {
          return x.dtype == y.dtype;
        } else if constexpr (std::is_same_v<A, ScanAttr>) {
          return x.axis == y.axis;
        } else if constexpr (std::is_same_v<A, SortAttr>) {
          return x.axis == y.axis && x.descending == y.descending && x.count == y.count;
        } else if constexpr (std::is_same_v<A, IndexAttr>) {
          return x.axis == y.axis && x.index_axes == y.index_axes && x.origin == y.origin;
        } else if constexpr (std::is_same_v<A, ConcatAttr>) {
          return x.axis == y.axis;
        } else {
          return x.axes == y.axes && x.keepdims == y.keepdims && x.mode == y.mode;
        }
      },
      a);
}

bool structurally_equal(const NodePtr& a, const NodePtr& b) {
  if (a == b) return true;
  if (!a || !b || a->hash() != b->hash() || a->op() != b->op() || a->dtype() != b->dtype() ||
      a->shape() != b->shape() || !attrs_equal(a->attrs(), b->attrs()))
    return false;
  for (std::size_t i = 0; i < a->inputs().size(); ++i)
    if (!structurally_equal(a->input(static_cast<int>(i)), b->input(static_cast<int>(i))))
      return false;
  return true;
}

NodePtr make_input(std::shared_ptr<Buffer> buffer, DType dtype, Layout layout) {
  const std::uint64_t version = buffer ? buffer->version() : 0;
  return Node::make(Op::input, {}, InputAttr{std::move(buffer), dtype, std::move(layout), next_input_id(), version});
}
NodePtr make_constant(DType dtype, Shape shape, Scalar value) {
  return Node::make(Op::constant, {}, ConstantAttr{dtype, std::move(shape), value});
}
NodePtr make_iota(DType dtype, std::int64_t count, double start, double step) {
  TJ_CHECK(count >= 0) << "iota: negative count " << count;
  return Node::make(Op::iota, {}, IotaAttr{dtype, Layout::contiguous(Shape{count}), start, step});
}
// A node's operand list built from operands passed by value: moved in, where a braced list
// (an initializer_list, whose elements are const) would copy each one, an atomic increment and
// decrement of its count per operand of every op a user builds.
namespace {
template <class... Operands>
std::vector<NodePtr> operands(Operands&&... operand) {
  std::vector<NodePtr> list;
  list.reserve(sizeof...(operand));
  (list.push_back(std::forward<Operands>(operand)), ...);
  return list;
}
}  // namespace

NodePtr make_unary(Op op, NodePtr x) { return Node::make(op, operands(std::move(x))); }
NodePtr make_binary(Op op, NodePtr a, NodePtr b) { return Node::make(op, operands(std::move(a), std::move(b))); }
NodePtr make_cast(NodePtr x, DType dtype) { return Node::make(Op::cast, operands(std::move(x)), CastAttr{dtype}); }
NodePtr make_reshape(NodePtr x, Shape shape) {
  return Node::make(Op::reshape, operands(std::move(x)), ShapeAttr{std::move(shape)});
}
NodePtr make_expand(NodePtr x, Shape shape) {
  return Node::make(Op::expand, operands(std::move(x)), ShapeAttr{std::move(shape)});
}
NodePtr make_permute(NodePtr x, std::vector<int> perm) {
  return Node::make(Op::permute, operands(std::move(x)), PermuteAttr{std::move(perm)});
}
NodePtr make_reduce(Op op, NodePtr x, std::vector<int> axes, bool keepdims, ReductionMode mode) {
  return Node::make(op, operands(std::move(x)), ReduceAttr{std::move(axes), keepdims, mode});
}

NodePtr make_cumsum(NodePtr x, int axis) { return Node::make(Op::cumsum, operands(std::move(x)), ScanAttr{axis}); }
NodePtr make_sort(Op op, NodePtr x, int axis, bool descending, std::int64_t count) {
  return Node::make(op, operands(std::move(x)), SortAttr{axis, descending, count});
}

NodePtr make_gather(NodePtr x, NodePtr indices, IndexAttr attr) {
  return Node::make(Op::gather, operands(std::move(x), std::move(indices)), attr);
}
NodePtr make_scatter_add(NodePtr base, NodePtr indices, NodePtr values, IndexAttr attr) {
  return Node::make(Op::scatter_add, operands(std::move(base), std::move(indices), std::move(values)), attr);
}
NodePtr make_concat(std::vector<NodePtr> parts, int axis) {
  return Node::make(Op::concat, std::move(parts), ConcatAttr{axis});
}
NodePtr make_slice(NodePtr x, int axis, std::int64_t start, std::int64_t count) {
  return Node::make(Op::slice, {std::move(x)}, SliceAttr{axis, start, 1, count});
}

}  // namespace tensorjit::ir
