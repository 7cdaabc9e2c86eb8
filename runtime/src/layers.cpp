// matmul with numpy's rules, and the layers built from primitives: the fusion pass recognises the
// same patterns in a user's own code, so nothing here is a special op. Each function checks its
// arguments before it builds anything, so that an error names the function the user called, not
// one of the ops it is made of.
#include <tensorjit/functions.hpp>

#include <cmath>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::check_defined;
using detail::checked_axis;
using detail::describe;
using detail::node_of;
using detail::wrap;

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_defined(a, "matmul");
  check_defined(b, "matmul");
  TJ_CHECK(a.rank() >= 1 && b.rank() >= 1)
      << "matmul: operands must have rank >= 1, got " << describe(a) << " @ " << describe(b);
  DType dtype = promote_types(a.dtype(), b.dtype());
  TJ_CHECK(dtype != boolean) << "matmul: not defined for bool operands " << describe(a) << " @ "
                             << describe(b) << "; use astype first";
  // numpy: a 1-D left operand is a row, a 1-D right operand a column; the added axis goes away.
  Tensor left = a.rank() == 1 ? a.unsqueeze(0) : a;
  Tensor right = b.rank() == 1 ? b.unsqueeze(1) : b;
  const Shape& ls = left.shape();
  const Shape& rs = right.shape();
  TJ_CHECK(ls[ls.size() - 1] == rs[rs.size() - 2])
      << "matmul: the inner dimensions differ: " << describe(a) << " @ " << describe(b);
  Shape left_batch(ls.begin(), ls.end() - 2), right_batch(rs.begin(), rs.end() - 2);
  auto batch = ir::broadcast_shapes(left_batch, right_batch);
  TJ_CHECK(batch) << "matmul: the batch dimensions of " << describe(a) << " and " << describe(b)
                  << " do not broadcast";
  Shape left_shape = *batch, right_shape = *batch;
  left_shape.insert(left_shape.end(), ls.end() - 2, ls.end());
  right_shape.insert(right_shape.end(), rs.end() - 2, rs.end());
  Tensor product = wrap(ir::make_binary(ir::Op::matmul, node_of(left.astype(dtype).expand(left_shape), "matmul"),
                                        node_of(right.astype(dtype).expand(right_shape), "matmul")));
  if (a.rank() == 1) product = product.squeeze(-2);
  if (b.rank() == 1) product = product.squeeze(-1);
  return product;
}

namespace {

Tensor floating(const Tensor& x) { return is_floating(x.dtype()) ? x : x.astype(f32); }

// softmax and log_softmax: x holds a value and `axis` names one of its axes. Over an empty axis
// there is nothing to normalise and the result is empty: returned as is, since max has no identity.
int checked_softmax_axis(std::string_view name, const Tensor& x, std::int64_t axis) {
  check_defined(x, name);
  return checked_axis(axis, x.rank(), name, x.shape());
}

// layernorm and rmsnorm normalise over the last axis of x; `weights` (gamma, beta) are 1-D with its
// extent, and eps is finite and not negative (a NaN or negative eps makes rows NaN silently).
void check_norm_arguments(std::string_view name, const Tensor& x,
                          std::initializer_list<std::pair<std::string_view, const Tensor*>> weights,
                          double eps) {
  check_defined(x, name);
  for (const auto& [label, weight] : weights) check_defined(*weight, name);
  TJ_CHECK(x.rank() >= 1) << name << ": x must have rank >= 1 (it is normalised over its last axis), got "
                          << describe(x);
  const std::int64_t extent = x.shape().back();
  for (const auto& [label, weight] : weights)
    TJ_CHECK(weight->rank() == 1 && weight->shape()[0] == extent)
        << name << ": " << label << " " << describe(*weight) << " must be 1-D with the last extent of x "
        << describe(x) << ", [" << extent << "]";
  TJ_CHECK(std::isfinite(eps) && eps >= 0) << name << ": eps must be finite and >= 0, got " << eps;
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t axis) {
  const int ax = checked_softmax_axis("softmax", x, axis);
  Tensor v = floating(x);
  if (x.shape()[ax] == 0) return v;
  // The shift only keeps exp in range; detached, its gradient (which cancels) is not built.
  Tensor shifted = v - v.max({axis}, true).detach();
  Tensor e = exp(shifted);
  return e / e.sum({axis}, true);
}

Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  const int ax = checked_softmax_axis("log_softmax", x, axis);
  Tensor v = floating(x);
  if (x.shape()[ax] == 0) return v;
  Tensor shifted = v - v.max({axis}, true).detach();
  return shifted - log(exp(shifted).sum({axis}, true));
}

Tensor layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  check_norm_arguments("layernorm", x, {{"gamma", &gamma}, {"beta", &beta}}, eps);
  Tensor v = floating(x);
  // Centred two-pass variance: never E[x^2] - E[x]^2, which cancels for rows with a large mean.
  Tensor centred = v - v.mean({-1}, true);
  Tensor variance = (centred * centred).mean({-1}, true);
  return centred * rsqrt(variance + eps) * gamma + beta;
}

Tensor rmsnorm(const Tensor& x, const Tensor& gamma, double eps) {
  check_norm_arguments("rmsnorm", x, {{"gamma", &gamma}}, eps);
  Tensor v = floating(x);
  return v * rsqrt((v * v).mean({-1}, true) + eps) * gamma;
}

}  // namespace tensorjit
