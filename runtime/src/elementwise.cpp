// Elementwise operators and functions: numpy broadcasting and PyTorch promotion, made explicit as
// expand and cast nodes, so that the IR's elementwise ops see one shape and one dtype.
#include <tensorjit/functions.hpp>

#include <initializer_list>
#include <optional>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::describe;
using detail::node_of;
using detail::wrap;

namespace {

// By value and returned as it is when unchanged (a return of the parameter moves; a conditional
// expression would copy): no reference count is touched for the usual operand.
ir::NodePtr broadcast_to(ir::NodePtr node, const Shape& shape) {
  if (node->shape() == shape) return node;
  return ir::make_expand(std::move(node), shape);
}

ir::NodePtr cast_to(ir::NodePtr node, DType dtype) {
  if (node->dtype() == dtype) return node;
  return ir::make_cast(std::move(node), dtype);
}

Shape broadcast_shape(std::string_view op, std::initializer_list<const Tensor*> operands) {
  Shape shape = (*operands.begin())->shape();
  for (const Tensor* t : operands) {
    if (t->shape() == shape) continue;  // the usual case, without building a shape
    auto joined = ir::broadcast_shapes(shape, t->shape());
    if (!joined) {
      std::string all;
      for (const Tensor* u : operands) all += (all.empty() ? "" : " and ") + describe(*u);
      TJ_FAIL() << op << ": cannot broadcast " << all
                << " together (numpy rules: trailing axes must be equal or 1)";
    }
    shape = *joined;
  }
  return shape;
}

// PyTorch's result_type (c10's ResultTypeState): the operands with axes decide the dtype; a 0-d
// operand (tj::scalar, a reduction over every axis, a C++ scalar made 0-d by as_operand with its
// weak dtype already chosen) counts only when its category (bool < integer < floating) is higher
// than theirs, or when every operand is 0-d. So i32[3] + scalar<int64_t>(5) is i32 and
// f32[3] + scalar(2.0) is f32, while i32[3] + scalar(2.0) is f64.
DType result_type(std::initializer_list<const Tensor*> operands) {
  std::optional<DType> dimensioned, zero_dim;
  for (const Tensor* t : operands) {
    std::optional<DType>& kind = t->rank() > 0 ? dimensioned : zero_dim;
    kind = kind ? promote_types(*kind, t->dtype()) : t->dtype();
  }
  if (!dimensioned) return *zero_dim;
  if (!zero_dim) return *dimensioned;
  auto category = [](DType t) { return is_floating(t) ? 2 : is_integer(t) ? 1 : 0; };
  return category(*zero_dim) > category(*dimensioned) ? promote_types(*dimensioned, *zero_dim)
                                                      : *dimensioned;
}

// Each helper takes `name`, the function the user called (remainder, not mod): errors name it.

// The dtype both operands promote to, once both are known to hold a value.
DType promoted_dtype(std::string_view name, const Tensor& a, const Tensor& b) {
  detail::check_defined(a, name);
  detail::check_defined(b, name);
  return result_type({&a, &b});
}

// Broadcasts a and b to one shape and casts both to `dtype`, then builds `op`.
Tensor binary(std::string_view name, ir::Op op, const Tensor& a, const Tensor& b, DType dtype) {
  auto na = node_of(a, name);
  auto nb = node_of(b, name);
  Shape shape = broadcast_shape(name, {&a, &b});
  return wrap(ir::make_binary(op, broadcast_to(cast_to(std::move(na), dtype), shape),
                              broadcast_to(cast_to(std::move(nb), dtype), shape)));
}

Tensor promoted(ir::Op op, const Tensor& a, const Tensor& b) {
  return binary(ir::op_name(op), op, a, b, promoted_dtype(ir::op_name(op), a, b));
}

// Arithmetic has no meaning on bool in the IR; say what to do instead of a bare dtype error.
Tensor arithmetic(std::string_view name, ir::Op op, const Tensor& a, const Tensor& b) {
  DType dtype = promoted_dtype(name, a, b);
  TJ_CHECK(dtype != boolean) << name << ": arithmetic on two bool tensors (" << describe(a) << ", "
                             << describe(b) << "); use logical_and/logical_or, or astype(tj::i32) first";
  return binary(name, op, a, b, dtype);
}
Tensor arithmetic(ir::Op op, const Tensor& a, const Tensor& b) { return arithmetic(ir::op_name(op), op, a, b); }

Tensor integer_or_bool(std::string_view name, ir::Op integer_op, ir::Op bool_op, const Tensor& a,
                       const Tensor& b) {
  DType dtype = promoted_dtype(name, a, b);
  TJ_CHECK(!is_floating(dtype)) << name << ": needs integer or bool tensors, got " << describe(a)
                                << " and " << describe(b);
  return binary(name, dtype == boolean ? bool_op : integer_op, a, b, dtype);
}

Tensor integer_only(std::string_view name, ir::Op op, const Tensor& a, const Tensor& b,
                    std::string_view advice = {}) {
  DType dtype = promoted_dtype(name, a, b);
  TJ_CHECK(is_integer(dtype)) << name << ": needs integer tensors, got " << describe(a) << " and "
                              << describe(b) << advice;
  return binary(name, op, a, b, dtype);
}

// The floating functions promote integer and bool inputs to f32 (PyTorch).
Tensor floating_unary(ir::Op op, const Tensor& x) {
  auto node = node_of(x, ir::op_name(op));
  return wrap(ir::make_unary(op, cast_to(node, is_floating(node->dtype()) ? node->dtype() : f32)));
}

Tensor numeric_unary(ir::Op op, const Tensor& x) {
  auto node = node_of(x, ir::op_name(op));
  TJ_CHECK(node->dtype() != boolean) << ir::op_name(op) << ": not defined for bool input "
                                     << describe(x) << "; use astype(tj::i32) first";
  return wrap(ir::make_unary(op, node));
}

ir::NodePtr scalar_like(DType dtype, ir::Scalar value) { return ir::make_constant(dtype, {}, value); }

}  // namespace

// An empty `like` gives the scalar its default dtype: the operator it is an operand of then says
// that its tensor is empty, naming the operator.
Tensor weak_scalar(const Tensor& like, double value) {
  DType dtype = like.defined() && is_floating(like.dtype()) ? like.dtype() : f32;
  return wrap(scalar_like(dtype, ir::Scalar::of(dtype, value)));
}
Tensor weak_scalar(const Tensor& like, std::int64_t value) {
  DType dtype = !like.defined() || like.dtype() == boolean ? i64 : like.dtype();
  return wrap(scalar_like(dtype, ir::Scalar::of_int(dtype, value)));
}
Tensor weak_scalar(const Tensor& like, bool value) {
  DType dtype = like.defined() ? like.dtype() : boolean;
  return wrap(scalar_like(dtype, ir::Scalar::of_int(dtype, value ? 1 : 0)));
}

Tensor operator+(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::add, a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::sub, a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::mul, a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) {
  DType dtype = promoted_dtype("div", a, b);
  return binary("div", ir::Op::div, a, b, is_floating(dtype) ? dtype : f32);
}
Tensor operator-(const Tensor& a) { return numeric_unary(ir::Op::neg, a); }

Tensor operator<(const Tensor& a, const Tensor& b) { return promoted(ir::Op::lt, a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return promoted(ir::Op::le, a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return promoted(ir::Op::gt, a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return promoted(ir::Op::ge, a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return promoted(ir::Op::eq, a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return promoted(ir::Op::ne, a, b); }

// numpy's names: & | ^ are bitwise_and, bitwise_or and bitwise_xor for bool operands too.
Tensor operator&(const Tensor& a, const Tensor& b) {
  return integer_or_bool("bitwise_and", ir::Op::bitwise_and, ir::Op::logical_and, a, b);
}
Tensor operator|(const Tensor& a, const Tensor& b) {
  return integer_or_bool("bitwise_or", ir::Op::bitwise_or, ir::Op::logical_or, a, b);
}
Tensor operator^(const Tensor& a, const Tensor& b) {
  // For bool, xor is inequality.
  return integer_or_bool("bitwise_xor", ir::Op::bitwise_xor, ir::Op::ne, a, b);
}
Tensor operator~(const Tensor& a) {
  detail::check_defined(a, "bitwise_not");
  if (a.dtype() == boolean) return logical_not(a);
  TJ_CHECK(is_integer(a.dtype())) << "bitwise_not: needs an integer or bool tensor, got " << describe(a);
  return a ^ as_operand(a, std::int64_t{-1});
}
Tensor operator<<(const Tensor& a, const Tensor& b) { return integer_only("left_shift", ir::Op::left_shift, a, b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return integer_only("right_shift", ir::Op::right_shift, a, b); }

Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return integer_only("floor_divide", ir::Op::div, a, b, "; for floats divide with / instead");
}
Tensor remainder(const Tensor& a, const Tensor& b) { return arithmetic("remainder", ir::Op::mod, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::minimum, a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return arithmetic(ir::Op::pow, a, b); }
// minimum(maximum(x, lo), hi) in one dtype for all three (PyTorch's clamp): promoting pairwise,
// i32[3] clamped by 0-d f32 and f64 bounds would end f32 instead of f64. The operands are checked
// here so that an error names clamp.
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  for (const Tensor* t : {&x, &lo, &hi}) detail::check_defined(*t, "clamp");
  broadcast_shape("clamp", {&x, &lo, &hi});
  const DType dtype = result_type({&x, &lo, &hi});
  TJ_CHECK(dtype != boolean) << "clamp: not defined for bool tensors (" << describe(x) << ", "
                             << describe(lo) << ", " << describe(hi) << "); use astype(tj::i32) first";
  return minimum(maximum(x.astype(dtype), lo.astype(dtype)), hi.astype(dtype));
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  auto nc = node_of(condition, "where");
  auto na = node_of(a, "where");
  auto nb = node_of(b, "where");
  TJ_CHECK(nc->dtype() == boolean) << "where: the condition must be bool, got " << describe(condition)
                                   << "; compare first (e.g. x > 0)";
  Shape shape = broadcast_shape("where", {&condition, &a, &b});
  DType dtype = result_type({&a, &b});
  return wrap(ir::Node::make(ir::Op::where, {broadcast_to(nc, shape), broadcast_to(cast_to(na, dtype), shape),
                                             broadcast_to(cast_to(nb, dtype), shape)}));
}

Tensor logical_not(const Tensor& x) {
  auto node = node_of(x, "logical_not");
  return wrap(ir::make_unary(ir::Op::logical_not, cast_to(node, boolean)));
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return binary("logical_and", ir::Op::logical_and, a, b, boolean);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return binary("logical_or", ir::Op::logical_or, a, b, boolean);
}

Tensor abs(const Tensor& x) { return numeric_unary(ir::Op::abs, x); }
Tensor sign(const Tensor& x) { return numeric_unary(ir::Op::sign, x); }
Tensor square(const Tensor& x) { return numeric_unary(ir::Op::square, x); }
Tensor relu(const Tensor& x) { return numeric_unary(ir::Op::relu, x); }
Tensor sqrt(const Tensor& x) { return floating_unary(ir::Op::sqrt, x); }
Tensor rsqrt(const Tensor& x) { return floating_unary(ir::Op::rsqrt, x); }
Tensor reciprocal(const Tensor& x) { return floating_unary(ir::Op::reciprocal, x); }
Tensor exp(const Tensor& x) { return floating_unary(ir::Op::exp, x); }
Tensor exp2(const Tensor& x) { return floating_unary(ir::Op::exp2, x); }
Tensor expm1(const Tensor& x) { return floating_unary(ir::Op::expm1, x); }
Tensor log(const Tensor& x) { return floating_unary(ir::Op::log, x); }
Tensor log2(const Tensor& x) { return floating_unary(ir::Op::log2, x); }
Tensor log1p(const Tensor& x) { return floating_unary(ir::Op::log1p, x); }
Tensor sin(const Tensor& x) { return floating_unary(ir::Op::sin, x); }
Tensor cos(const Tensor& x) { return floating_unary(ir::Op::cos, x); }
Tensor tanh(const Tensor& x) { return floating_unary(ir::Op::tanh, x); }
Tensor sigmoid(const Tensor& x) { return floating_unary(ir::Op::sigmoid, x); }
Tensor erf(const Tensor& x) { return floating_unary(ir::Op::erf, x); }
Tensor gelu(const Tensor& x) { return floating_unary(ir::Op::gelu, x); }
Tensor gelu_tanh(const Tensor& x) { return floating_unary(ir::Op::gelu_tanh, x); }
Tensor silu(const Tensor& x) { return floating_unary(ir::Op::silu, x); }
Tensor softplus(const Tensor& x) { return floating_unary(ir::Op::softplus, x); }
Tensor tan(const Tensor& x) { return floating_unary(ir::Op::tan, x); }
Tensor atan(const Tensor& x) { return floating_unary(ir::Op::atan, x); }
Tensor atan2(const Tensor& y, const Tensor& x) {
  DType dtype = promoted_dtype("atan2", y, x);
  return binary("atan2", ir::Op::atan2, y, x, is_floating(dtype) ? dtype : f32);
}

Tensor floor(const Tensor& x) { return numeric_unary(ir::Op::floor, x); }
Tensor ceil(const Tensor& x) { return numeric_unary(ir::Op::ceil, x); }
Tensor round(const Tensor& x) { return numeric_unary(ir::Op::round, x); }
Tensor trunc(const Tensor& x) { return numeric_unary(ir::Op::trunc, x); }

Tensor isnan(const Tensor& x) { return wrap(ir::make_unary(ir::Op::isnan, node_of(x, "isnan"))); }
Tensor isinf(const Tensor& x) { return wrap(ir::make_unary(ir::Op::isinf, node_of(x, "isinf"))); }
Tensor isfinite(const Tensor& x) {
  return wrap(ir::make_unary(ir::Op::isfinite, node_of(x, "isfinite")));
}

}  // namespace tensorjit
