// Shared by the vector math tests (tests/codegen/vector_math_*_test.cpp, the exhaustive f32 run in
// tests/codegen/exhaustive/, and the runtime's per-op test): the documented error bounds, a kernel
// computing one op over arrays, the references, and the ulp error.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include "vector_math_bounds.hpp"

namespace tensorjit::codegen::testing {

namespace ir = tensorjit::ir;

// A JIT'd kernel computing `op` of T over contiguous arrays (one or two operands).
template <typename T> class OpKernel {
 public:
  OpKernel(Jit& jit, ir::Op op) {
    const int arity = ir::info(op).arity;
    for (int k = 0; k < arity; ++k) {
      spec_.inputs.push_back(ir::make_input(ir::Buffer::allocate(sizeof(T)), dtype_of<T>(),
                                            ir::Layout::contiguous({1})));
      spec_.access.push_back(InnerAccess::contiguous);
    }
    spec_.expression.outputs.push_back(ir::Node::make(op, spec_.inputs));
    kernel_ = compile_loop_kernel(jit, spec_);
  }

  // out[i] = op(x[i]) or op(x[i], y[i]) for i < count; `split` (if >= 0) cuts the call in two.
  void run(const T* x, const T* y, T* out, std::int64_t count, std::int64_t split = -1) const {
    if (split < 0) {
      run_range(x, y, out, count, 0, count);
    } else {
      run_range(x, y, out, count, 0, split);
      run_range(x, y, out, count, split, count);
    }
  }

  // The same for i in [begin, end) only, in one call of the kernel.
  void run_range(const T* x, const T* y, T* out, std::int64_t count, std::int64_t begin,
                 std::int64_t end) const {
    LoopArgs args{};
    args.rank = 1;
    args.shape[0] = count;
    const void* inputs[2] = {x, y};
    std::int64_t strides[2 * kMaxLoopRank] = {};
    void* outputs[1] = {out};
    args.inputs = inputs;
    args.input_strides = strides;
    args.outputs = outputs;
    kernel_->as<LoopFunction>()(&args, begin, end);
  }

 private:
  LoopKernelSpec spec_;
  KernelHandle kernel_;
};

// The worst error of a batch and the input that produced it.
struct WorstError {
  double ulp = 0;
  double x = 0;
  double y = 0;
  void add(double error, double at_x, double at_y = 0) {
    if (error > ulp || std::isnan(error)) {
      ulp = error;
      x = at_x;
      y = at_y;
    }
  }
};

// Errors of `op` over `x` (and `y` for pow and atan2) computed by `kernel`.
template <typename T>
WorstError measure(const OpKernel<T>& kernel, ir::Op op, const std::vector<T>& x,
                   const std::vector<T>& y = {}) {
  std::vector<T> out(x.size());
  kernel.run(x.data(), y.empty() ? nullptr : y.data(), out.data(),
             static_cast<std::int64_t>(x.size()));
  using R = ReferenceType<T>;
  WorstError worst;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const R second = y.empty() ? R(0) : R(y[i]);
    worst.add(ulp_error(out[i], reference<T, R>(op, R(x[i]), second)), double(x[i]),
              y.empty() ? 0.0 : double(y[i]));
  }
  return worst;
}

// A random f64 with a uniformly chosen binade (every exponent, subnormals included), sign and
// significand.
inline double random_binade_double(std::mt19937_64& rng) {
  const std::uint64_t exponent = std::uniform_int_distribution<std::uint64_t>(0, 2046)(rng);
  const std::uint64_t bits =
      (rng() & 0x800fffffffffffffULL) | (exponent << 52);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// A random value of [lowest, highest] with a log-uniform magnitude down to 2^-60 (so small
// arguments are as well covered as large ones), or uniform, half of the time each.
inline double random_in_range(std::mt19937_64& rng, double lowest, double highest) {
  const double limit = std::max(std::fabs(lowest), std::fabs(highest));
  for (;;) {
    double value;
    if (rng() % 2 == 0) {
      value = std::uniform_real_distribution<double>(lowest, highest)(rng);
    } else {
      const double exponent = std::uniform_real_distribution<double>(-60, std::log2(limit))(rng);
      value = std::exp2(exponent) * (rng() % 2 == 0 ? 1 : -1);
    }
    if (value >= lowest && value <= highest) return value;
  }
}

// The interesting arguments of each op (where the result is neither saturated nor trivially x).
struct ArgumentRange {
  double lowest;
  double highest;
};

inline ArgumentRange interesting_range(ir::Op op, DType dtype) {
  const bool single = dtype == DType::f32;
  switch (op) {
    case ir::Op::exp: return single ? ArgumentRange{-104, 89} : ArgumentRange{-746, 710};
    case ir::Op::exp2: return single ? ArgumentRange{-150, 128} : ArgumentRange{-1076, 1024};
    case ir::Op::expm1: return single ? ArgumentRange{-20, 89} : ArgumentRange{-40, 710};
    case ir::Op::log: case ir::Op::log2: return {0, single ? 3e38 : 1e308};
    case ir::Op::log1p: return {-1, single ? 3e38 : 1e308};
    case ir::Op::sin: case ir::Op::cos: case ir::Op::tan: return {-0x1p30, 0x1p30};
    case ir::Op::atan: return {-1e20, 1e20};
    case ir::Op::tanh: return {-20, 20};
    case ir::Op::erf: return {-6, 6};
    case ir::Op::sigmoid: case ir::Op::silu: return single ? ArgumentRange{-110, 20} : ArgumentRange{-750, 40};
    case ir::Op::softplus: return single ? ArgumentRange{-110, 25} : ArgumentRange{-750, 25};
    case ir::Op::gelu: return single ? ArgumentRange{-15, 10} : ArgumentRange{-40, 10};
    case ir::Op::gelu_tanh: return single ? ArgumentRange{-15, 10} : ArgumentRange{-40, 10};
    default: return {-10, 10};
  }
}

}  // namespace tensorjit::codegen::testing
