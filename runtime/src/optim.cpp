// torch.optim's update formulas (torch/optim/sgd.py, adam.py: the single-tensor, foreach=False
// path) as tensor expressions. Every scalar that may change between steps (the learning rate, the
// bias corrections) is a 0-d tensor in a buffer, so it reaches the kernel as an argument and a new
// value compiles nothing; the options fixed at construction choose the expression's structure.
#include <tensorjit/optim.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>
#include <tensorjit/functions.hpp>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::optim {

using detail::describe;

Optimizer::Optimizer(Parameters params, double lr) : params_(std::move(params)), lr_(lr) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    TJ_CHECK(params_[i] && params_[i]->defined())
        << "optimizer: parameter " << i << " is " << (params_[i] ? "an empty tensor" : "a null pointer");
    TJ_CHECK(is_floating(params_[i]->dtype()))
        << "optimizer: parameter " << i << " is " << describe(*params_[i]) << "; only floating tensors train";
  }
  set_lr(lr);
}

void Optimizer::set_lr(double lr) {
  TJ_CHECK(std::isfinite(lr) && lr >= 0) << "optimizer: the learning rate must be finite and >= 0, got " << lr;
  lr_ = lr;
}

namespace {

// The buffer a handle's value occupies whole, when it is an evaluated tensor of its own (an input
// node over a buffer of ours, contiguous from its start): what a spare may reuse.
std::shared_ptr<ir::Buffer> held_buffer(const Tensor& tensor) {
  const ir::NodePtr node = tensor.impl()->node();
  if (node->op() != ir::Op::input) return nullptr;
  const auto& in = node->attr<ir::InputAttr>();
  if (!in.buffer || !in.buffer->owned() || in.layout != ir::Layout::contiguous(in.layout.shape)) return nullptr;
  return in.buffer;
}

}  // namespace

Tensor Optimizer::argument(double value, const Tensor& like) {
  const DType dtype = like.dtype() == f64 ? f64 : f32;
  auto same = [&](const Argument& a) {
    return a.dtype == dtype && std::bit_cast<std::uint64_t>(a.value) == std::bit_cast<std::uint64_t>(value);
  };
  if (auto it = std::find_if(arguments_.begin(), arguments_.end(), same); it != arguments_.end()) return it->tensor;
  Tensor made;
  if (auto it = std::find_if(previous_arguments_.begin(), previous_arguments_.end(), same);
      it != previous_arguments_.end())
    made = it->tensor;
  else if (dtype == f64)
    made = tensor<double>(Shape{}, {value});
  else
    made = tensor<float>(Shape{}, {static_cast<float>(value)});
  arguments_.push_back({dtype, value, made});
  return made;
}

void Optimizer::step(const std::vector<Tensor>& grads, const std::vector<Tensor>& with) {
  TJ_CHECK(grads.size() == params_.size())
      << "optimizer step: " << grads.size() << " gradients for " << params_.size() << " parameters";
  for (std::size_t i = 0; i < grads.size(); ++i) {
    detail::check_defined(grads[i], "optimizer step");
    TJ_CHECK(grads[i].shape() == params_[i]->shape())
        << "optimizer step: gradient " << i << " " << describe(grads[i]) << " does not match parameter "
        << describe(*params_[i]);
  }
  ++steps_;
  previous_arguments_ = std::exchange(arguments_, {});
  std::vector<std::vector<Tensor>> updates;
  std::vector<Tensor> outputs = with;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    updates.push_back(update(i, *params_[i], grads[i].astype(params_[i]->dtype())));
    outputs.insert(outputs.end(), updates.back().begin(), updates.back().end());
  }
  // Each new value may go into its handle's own buffer (in place) or into the spare buffer.
  spares_.resize(params_.size());
  std::vector<detail::Donation> donations;
  std::vector<const Tensor*> targets_of;  // per donation: the handle it updates, or null
  std::size_t output = with.size();
  for (std::size_t i = 0; i < updates.size(); ++i) {
    std::vector<Tensor*> targets{params_[i]};
    for (Tensor* t : state(i)) targets.push_back(t);
    spares_[i].resize(updates[i].size());
    for (std::size_t k = 0; k < updates[i].size(); ++k, ++output) {
      const Tensor* target = k < targets.size() && targets[k]->defined() ? targets[k] : nullptr;
      donations.push_back({output, target && target->impl().use_count() == 1 ? target->impl() : nullptr,
                           std::move(spares_[i][k])});
      targets_of.push_back(target);
    }
  }
  const std::vector<detail::Donated> donated = detail::evaluate(outputs, donations);
  std::size_t d = 0;
  for (std::size_t i = 0; i < updates.size(); ++i) {
    // The buffer a handle held before this step is the next step's spare, unless it now holds
    // the new value (in place); held_buffer is read only now, since holding the buffer during
    // the eval would have kept the eval from writing it in place.
    for (std::size_t k = 0; k < updates[i].size(); ++k, ++d)
      spares_[i][k] = donated[d] == detail::Donated::in_place ? std::move(donations[d].spare)
                      : targets_of[d]                         ? held_buffer(*targets_of[d])
                                                              : nullptr;
    *params_[i] = updates[i].front();
    keep_state(i, std::vector<Tensor>(updates[i].begin() + 1, updates[i].end()));
  }
}

// ---- SGD ----

SGD::SGD(Parameters params, SGDOptions options)
    : Optimizer(std::move(params), options.lr), options_(options), momentum_buffers_(params_.size()) {
  TJ_CHECK(options.momentum >= 0 && options.weight_decay >= 0)
      << "SGD: momentum " << options.momentum << " and weight decay " << options.weight_decay << " must be >= 0";
  TJ_CHECK(!options.nesterov || (options.momentum > 0 && options.dampening == 0))
      << "SGD: Nesterov momentum requires a momentum > 0 and zero dampening";
}

std::vector<Tensor> SGD::update(std::size_t index, const Tensor& param, const Tensor& grad) {
  Tensor g = grad;
  if (options_.weight_decay != 0) g = g + param * argument(options_.weight_decay, param);
  std::vector<Tensor> result{Tensor()};
  if (options_.momentum != 0) {
    Tensor& buffer = momentum_buffers_[index];
    // The first step takes the gradient itself as the buffer (PyTorch's clone), undamped.
    Tensor next = buffer.defined()
                      ? buffer * argument(options_.momentum, param) + g * argument(1 - options_.dampening, param)
                      : g;
    g = options_.nesterov ? g + next * argument(options_.momentum, param) : next;
    result.push_back(next);
  }
  result.front() = param + g * argument(-lr_, param);
  return result;
}

void SGD::keep_state(std::size_t index, std::vector<Tensor> state) {
  if (!state.empty()) momentum_buffers_[index] = state.front();
}

std::vector<Tensor*> SGD::state(std::size_t index) {
  if (options_.momentum == 0) return {};
  return {&momentum_buffers_[index]};
}

// ---- Adam, AdamW ----

Adam::Adam(Parameters params, AdamOptions options) : Adam(std::move(params), options, false) {}

Adam::Adam(Parameters params, AdamOptions options, bool decoupled)
    : Optimizer(std::move(params), options.lr), options_(options), decoupled_(decoupled) {
  TJ_CHECK(options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1)
      << "Adam: betas must lie in [0, 1), got " << options.beta1 << " and " << options.beta2;
  TJ_CHECK(options.eps >= 0 && options.weight_decay >= 0)
      << "Adam: eps " << options.eps << " and weight decay " << options.weight_decay << " must be >= 0";
  for (Tensor* p : params_) {
    first_moments_.push_back(zeros(p->shape(), p->dtype()));
    second_moments_.push_back(zeros(p->shape(), p->dtype()));
  }
}

AdamW::AdamW(Parameters params, AdamWOptions o)
    : Adam(std::move(params), {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay}, true) {}

std::vector<Tensor> Adam::update(std::size_t index, const Tensor& param, const Tensor& grad) {
  const auto& o = options_;
  Tensor p = param, g = grad;
  if (o.weight_decay != 0) {
    if (decoupled_) p = p * argument(1 - lr_ * o.weight_decay, p);
    else g = g + p * argument(o.weight_decay, p);
  }
  const Tensor& m = first_moments_[index];
  const Tensor& v = second_moments_[index];
  // m.lerp_(g, 1 - beta1), in PyTorch's two forms (the one whose weight is below 0.5 adds).
  const double weight = 1 - o.beta1;
  Tensor next_m = weight < 0.5 ? m + (g - m) * argument(weight, p) : g - (g - m) * argument(1 - weight, p);
  Tensor next_v = v * argument(o.beta2, p) + (g * g) * argument(1 - o.beta2, p);
  const double steps = static_cast<double>(steps_);
  const double step_size = lr_ / (1 - std::pow(o.beta1, steps));
  const double correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, steps));
  Tensor denominator = sqrt(next_v) / argument(correction2_sqrt, p) + argument(o.eps, p);
  Tensor next_p = p + next_m * argument(-step_size, p) / denominator;
  return {next_p, next_m, next_v};
}

void Adam::keep_state(std::size_t index, std::vector<Tensor> state) {
  first_moments_[index] = state[0];
  second_moments_[index] = state[1];
}

std::vector<Tensor*> Adam::state(std::size_t index) { return {&first_moments_[index], &second_moments_[index]}; }

}  // namespace tensorjit::optim
