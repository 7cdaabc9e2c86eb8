// Gradients and losses. tj::grad builds the backward pass as ordinary lazy tensors: it fuses like
// any code, with the forward values it reads and with what consumes it (an optimizer step), and
// tj::eval({loss, g...}) computes the forward values once (docs/autodiff.md).
#pragma once

#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit {

// Reverse mode: the gradient of `y` with respect to each of `xs` (one tensor per x, of its shape
// and dtype). Without `dy`, y must hold one element (a loss) and its adjoint is 1; with it, the
// result is the vector-Jacobian product dy^T J (dy of y's shape, cast to y's dtype). An x that y
// does not depend on gets zeros. Gradients are graphs too: the gradient of a gradient works.
// Build the gradients before reading y: an evaluated handle forgets the graph that computed it.
std::vector<Tensor> grad(const Tensor& y, const std::vector<Tensor>& xs, const Tensor& dy = Tensor());

// The mean over the batch of -log_softmax(logits)[label], as torch.nn.functional.cross_entropy:
// logits [N, C] (or [C]) with classes along the last axis; `labels` either class indices (i32 or
// i64, shape [N] or []) in [0, C), or class probabilities of the logits' shape. An index outside
// [0, C) contributes nothing (it matches no class).
Tensor cross_entropy(const Tensor& logits, const Tensor& labels);

// mean((a - b)^2) over every element of the broadcast shape, as torch.nn.functional.mse_loss.
Tensor mse_loss(const Tensor& a, const Tensor& b);

}  // namespace tensorjit
