// Optimizers with torch.optim's formulas (foreach=False): SGD (momentum, dampening, weight decay,
// Nesterov), Adam and AdamW. step() builds each parameter's update, with its state, as one
// expression and evaluates every parameter's in one eval: a step is one fused kernel per
// parameter, which reads p, g and the state and writes them once. The hyper-parameters, the bias
// corrections and the learning rate reach the kernels as arguments, not compiled constants, so a
// learning-rate schedule compiles nothing new (docs/autodiff.md).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit::ir {
class Buffer;
}

namespace tensorjit::optim {

// The parameters an optimizer updates: pointers to the caller's handles, which must outlive it.
// step() gives each handle its new value as Tensor::assign does (value semantics: a copy taken
// before keeps the old values): in place when nothing else holds the parameter's buffer (or the
// state's); else into the buffer the same handle held before the previous step, when nothing
// holds that one any more (a copy of the handle made for tj::grad's argument list lives until
// the end of the statement that steps); else into a new buffer. So a step allocates no buffer
// for parameters and state after its first steps; the optimizer keeps at most one such spare
// buffer per parameter and state tensor.
using Parameters = std::vector<Tensor*>;

class Optimizer {
 public:
  explicit Optimizer(Parameters params, double lr);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One step: grads[i] is the gradient of parameter i (its shape; cast to its dtype). `with` are
  // evaluated in the same eval (the loss, say), so that values they share with the gradients are
  // computed once and fuse with them.
  void step(const std::vector<Tensor>& grads, const std::vector<Tensor>& with = {});

  double lr() const { return lr_; }
  void set_lr(double lr);
  std::int64_t steps() const { return steps_; }  // steps taken so far

 protected:
  // The new value of parameter `index` followed by the new values of its state, given its gradient;
  // steps() already counts this step.
  virtual std::vector<Tensor> update(std::size_t index, const Tensor& param, const Tensor& grad) = 0;
  // Hands the new state of parameter `index` (update's results after the first) back for keeping.
  virtual void keep_state(std::size_t index, std::vector<Tensor> state) = 0;
  // The handles of parameter `index`'s state, in the order of update's results after the first
  // (an entry may be an empty handle: SGD's momentum buffer before the first step).
  virtual std::vector<Tensor*> state(std::size_t index) = 0;
  // `value` as a 0-d tensor of `like`'s dtype held in a buffer: a kernel argument whatever the
  // value. The same tensor for the same value and dtype within a step and from the step before
  // (the hyper-parameters allocate once, a value that changes each step once per step).
  Tensor argument(double value, const Tensor& like);

  Parameters params_;
  double lr_;
  std::int64_t steps_ = 0;

 private:
  // Per parameter: the buffers its value and each state tensor held before the last step that
  // could not write in place (null: none); see Parameters.
  std::vector<std::vector<std::shared_ptr<ir::Buffer>>> spares_;
  struct Argument {
    DType dtype;
    double value;
    Tensor tensor;
  };
  std::vector<Argument> arguments_, previous_arguments_;  // this step's, the step before's
};

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;  // needs momentum > 0 and dampening == 0, as in PyTorch
};

class SGD final : public Optimizer {
 public:
  SGD(Parameters params, SGDOptions options = {});

 private:
  std::vector<Tensor> update(std::size_t index, const Tensor& param, const Tensor& grad) override;
  void keep_state(std::size_t index, std::vector<Tensor> state) override;
  std::vector<Tensor*> state(std::size_t index) override;
  SGDOptions options_;
  std::vector<Tensor> momentum_buffers_;  // empty handles until the first step
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;  // Adam: L2 added to the gradient; AdamW: decoupled, p *= 1 - lr * wd
};

// Adam, or AdamW when `decoupled_weight_decay` (use the AdamW class).
class Adam : public Optimizer {
 public:
  Adam(Parameters params, AdamOptions options = {});

 protected:
  Adam(Parameters params, AdamOptions options, bool decoupled_weight_decay);

 private:
  std::vector<Tensor> update(std::size_t index, const Tensor& param, const Tensor& grad) override;
  void keep_state(std::size_t index, std::vector<Tensor> state) override;
  std::vector<Tensor*> state(std::size_t index) override;
  AdamOptions options_;
  bool decoupled_;
  std::vector<Tensor> first_moments_, second_moments_;
};

// AdamW's options: Adam's, with PyTorch's default weight decay for AdamW.
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

// torch.optim.AdamW: weight decay applied to the parameter (p *= 1 - lr * wd) before Adam's step,
// not added to the gradient.
class AdamW final : public Adam {
 public:
  AdamW(Parameters params, AdamWOptions options = {});
};

}  // namespace tensorjit::optim
