// var, std and logsumexp: compositions of reductions and elementwise ops, so that the fusion
// passes see what a user's own code would give them (a mean and the centred sum of squares in one
// row kernel over the last axis, the max and the sum of exponentials likewise).
#include <tensorjit/functions.hpp>
#include <tensorjit/tensor.hpp>

#include <algorithm>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

namespace {

// The number of elements each output of a reduction over `axes` combines.
std::int64_t reduced_count(const Tensor& x, const std::vector<std::int64_t>& axes,
                           std::string_view name) {
  std::int64_t count = 1;
  for (int axis : detail::checked_axes(axes, x.rank(), name, x.shape())) count *= x.shape()[axis];
  return count;
}

// The centred two-pass variance (as layernorm computes it): the mean, then the sum of squared
// deviations divided by max(0, n - correction) (PyTorch 2's `correction`, numpy's `ddof`), so
// a divisor of 0 gives inf or NaN as in PyTorch. Integers and bool are promoted to f32.
Tensor variance(std::string_view name, const Tensor& input, const std::vector<std::int64_t>& axes,
                bool keepdims, double correction) {
  detail::check_defined(input, name);
  TJ_CHECK(correction >= 0) << name << ": correction must be at least 0, got " << correction;
  const std::int64_t count = reduced_count(input, axes, name);
  const Tensor x = is_floating(input.dtype()) ? input : input.astype(f32);
  const Tensor deviation = x - x.mean(axes, /*keepdims=*/true);
  const double divisor = std::max(0.0, static_cast<double>(count) - correction);
  return (deviation * deviation).sum(axes, keepdims) / divisor;
}

}  // namespace

Tensor Tensor::var(const std::vector<std::int64_t>& axes, bool keepdims, double correction) const {
  return variance("var", *this, axes, keepdims, correction);
}

// sqrt of the variance, whose gradient is 0 where the variance is 0, as PyTorch's std_backward
// masks it: sqrt's own adjoint there is g / (2 * 0), times a zero deviation, NaN. The root reads
// 1 at a zero variance, so no infinity reaches the chain rule; the values are sqrt's (+0 at 0).
Tensor Tensor::std(const std::vector<std::int64_t>& axes, bool keepdims, double correction) const {
  const Tensor v = variance("std", *this, axes, keepdims, correction);
  const Tensor zero = v == weak_scalar(v, 0.0);
  return where(zero, weak_scalar(v, 0.0), sqrt(where(zero, weak_scalar(v, 1.0), v)));
}

// max + log(sum(exp(x - max))): no exp overflows, and the largest term is exactly 1. Where the max
// is not finite the result is the max itself (PyTorch's values: a row of -inf gives -inf, a row
// holding +inf gives +inf, NaN propagates). Those are exactly the rows whose sum is NaN (x - max
// is -inf - -inf, inf - inf or NaN there; with a finite max every term lies in [0, 1]), so the
// choice reads the sum: the max, the sum and the result stay one row kernel over the last axis,
// where PyTorch's shift of an infinite max to 0 before the sum (or a test of the max) is a
// per-row step between the two reductions and split it into four steps.
Tensor logsumexp(const Tensor& input, const std::vector<std::int64_t>& axes, bool keepdims) {
  detail::check_defined(input, "logsumexp");
  TJ_CHECK(reduced_count(input, axes, "logsumexp") > 0)
      << "logsumexp: no elements to reduce in " << detail::describe(input)
      << "; the axes reduced must not be empty";
  const Tensor x = is_floating(input.dtype()) ? input : input.astype(f32);
  const Tensor max = x.max(axes, /*keepdims=*/true);
  const Tensor sum = exp(x - max).sum(axes, keepdims);
  const Tensor row_max = keepdims ? max : max.reshape(sum.shape());
  return where(isnan(sum), row_max, log(sum) + row_max);
}

}  // namespace tensorjit
