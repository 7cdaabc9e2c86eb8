// matmul with numpy's rules, and the layers built from primitives: the fusion pass recognises the
// same patterns in a user's own code, so nothing here is a special op.
#include <tensorjit/functions.hpp>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::describe;
using detail::node_of;
using detail::wrap;

Tensor matmul(const Tensor& a, const Tensor& b) {
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
}  // namespace

Tensor softmax(const Tensor& x, std::int64_t axis) {
  Tensor v = floating(x);
  Tensor shifted = v - v.max({axis}, true);
  Tensor e = exp(shifted);
  return e / e.sum({axis}, true);
}

Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  Tensor v = floating(x);
  Tensor shifted = v - v.max({axis}, true);
  return shifted - log(exp(shifted).sum({axis}, true));
}

Tensor layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  TJ_CHECK(x.rank() >= 1 && gamma.rank() == 1 && beta.rank() == 1 &&
           gamma.shape()[0] == x.shape().back() && beta.shape()[0] == x.shape().back())
      << "layernorm: gamma " << describe(gamma) << " and beta " << describe(beta)
      << " must be 1-D with the last extent of x " << describe(x);
  Tensor v = floating(x);
  // Centred two-pass variance: never E[x^2] - E[x]^2, which cancels for rows with a large mean.
  Tensor centred = v - v.mean({-1}, true);
  Tensor variance = (centred * centred).mean({-1}, true);
  return centred * rsqrt(variance + eps) * gamma + beta;
}

Tensor rmsnorm(const Tensor& x, const Tensor& gamma, double eps) {
  TJ_CHECK(x.rank() >= 1 && gamma.rank() == 1 && gamma.shape()[0] == x.shape().back())
      << "rmsnorm: gamma " << describe(gamma) << " must be 1-D with the last extent of x " << describe(x);
  Tensor v = floating(x);
  return v * rsqrt((v * v).mean({-1}, true) + eps) * gamma;
}

}  // namespace tensorjit
