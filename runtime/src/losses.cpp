// The losses of torch.nn.functional, built from ordinary ops so that their gradients come from the
// VJP table and fuse like any code: cross_entropy's backward is softmax minus the one-hot labels,
// one row kernel.
#include <tensorjit/autodiff.hpp>

#include <tensorjit/functions.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::check_defined;
using detail::describe;

Tensor cross_entropy(const Tensor& logits, const Tensor& labels) {
  check_defined(logits, "cross_entropy");
  check_defined(labels, "cross_entropy");
  TJ_CHECK(logits.rank() == 1 || logits.rank() == 2)
      << "cross_entropy: logits " << describe(logits)
      << " must be [N, C] or [C], the classes along the last axis";
  Tensor log_probabilities = log_softmax(logits, -1);
  const DType dtype = log_probabilities.dtype();
  Tensor target;
  if (is_floating(labels.dtype())) {
    TJ_CHECK(labels.shape() == logits.shape())
        << "cross_entropy: class probabilities " << describe(labels) << " must have the shape of the logits "
        << describe(logits);
    target = labels.astype(dtype);
  } else {
    TJ_CHECK(is_integer(labels.dtype()))
        << "cross_entropy: labels " << describe(labels)
        << " must be class indices (i32 or i64) or class probabilities (floating)";
    const bool batched = logits.rank() == 2;
    TJ_CHECK(labels.rank() == logits.rank() - 1 && (!batched || labels.shape()[0] == logits.shape()[0]))
        << "cross_entropy: class indices " << describe(labels) << " must have one index per row of the logits "
        << describe(logits);
    // The one-hot of each label, compared with the class numbers: it fuses into the loss's kernel.
    Tensor classes = arange(logits.shape().back(), i64);
    target = (labels.astype(i64).unsqueeze(-1) == classes).astype(dtype);
  }
  return (-(log_probabilities * target).sum({-1})).mean();
}

Tensor mse_loss(const Tensor& a, const Tensor& b) {
  check_defined(a, "mse_loss");
  check_defined(b, "mse_loss");
  TJ_CHECK(is_floating(a.dtype()) || is_floating(b.dtype()))
      << "mse_loss: " << describe(a) << " and " << describe(b) << " are not floating; use astype first";
  Tensor difference = a - b;
  return (difference * difference).mean();
}

}  // namespace tensorjit
