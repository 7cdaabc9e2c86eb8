// tensorjit::Tensor: a refcounted handle to a lazy value.
//
// Every operation returns a Tensor holding an unevaluated node; eval() materialises it, and reading
// values (item, to_vector, at, data, printing) evaluates first. Shapes, dtypes and axes are checked
// when an op is built, so a mistake throws tensorjit::Error at the line that made it. Copying a
// Tensor copies the handle, not the data (as in PyTorch).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorjit/dtype.hpp>
#include <tensorjit/error.hpp>
#include <tensorjit/shape.hpp>

namespace tensorjit {

// How a floating-point reduction may order its additions (docs/contracts.md, contract 3).
enum class Reduction : std::uint8_t {
  strict,  // a fixed, documented order: the same bits at any thread count and vector width
  fast,    // any order the hardware likes
};

namespace detail {
struct TensorImpl;
}

// C++ arithmetic types usable as weakly typed scalars: `f32 * 2.0` stays f32, `i32 + 1` stays i32,
// an integer tensor with a floating scalar gives f32 (PyTorch's and JAX's rule). A 0-d tensor
// (tj::scalar) counts only by a higher category, as in PyTorch: i32[3] + scalar<int64_t>(5) is i32.
template <typename T>
concept ScalarType = std::is_arithmetic_v<T>;

class Tensor {
 public:
  // An empty handle; any use other than assignment throws Error.
  Tensor();
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;
  // Rebinds this handle (value semantics: a copy of the old handle keeps its value). Assigning to
  // a temporary, as `t.slice(0, 0, 1) = x` would, is a compile error: it could change nothing.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor&) && = delete;
  Tensor& operator=(Tensor&&) && = delete;

  // Gives this handle `value`'s values, broadcast to this shape and cast to this dtype (PyTorch's
  // copy_), evaluated now and contiguous. Value semantics: handles copied from this one before,
  // and lazy graphs built from it, keep the old values; the old buffer is freed (and recycled,
  // docs/contracts.md) once nothing reads it. Throws Error when `value` does not broadcast.
  Tensor& assign(const Tensor& value) &;

  // ---- metadata (no evaluation) ----
  const Shape& shape() const;
  DType dtype() const;
  int rank() const;
  std::int64_t size() const;  // the number of elements
  bool defined() const { return impl_ != nullptr; }

  // ---- evaluation and values (these evaluate) ----
  const Tensor& eval() const;
  Shape strides() const;  // in elements, of the evaluated layout (a view keeps its strides)
  std::int64_t offset() const;
  const void* data() const;  // the first element of the evaluated layout
  template <typename T> T item() const;
  template <typename T> std::vector<T> to_vector() const;  // row-major, converted to T as cast does
  template <typename T> T at(const std::vector<std::int64_t>& index) const;
  std::string to_string() const;  // numpy's str(): summarised with "..." when large

  // ---- dtype ----
  Tensor astype(DType dtype) const;

  // ---- views: never copy (docs/contracts.md, contract 2) ----
  Tensor reshape(const Shape& shape) const;  // one -1 is inferred
  Tensor permute(const std::vector<std::int64_t>& axes) const;
  Tensor transpose() const;  // reverses the axes (numpy's .T)
  Tensor transpose(std::int64_t axis0, std::int64_t axis1) const;
  Tensor expand(const Shape& shape) const;  // numpy broadcast_to; -1 keeps an extent
  // Python's a[start:stop:step] along `axis`: negative indices count from the end, bounds clamp,
  // any nonzero step (a negative one walks backwards); nullopt is an omitted bound.
  Tensor slice(std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
               std::int64_t step = 1) const;
  Tensor flip(std::int64_t axis) const;
  Tensor squeeze() const;  // every size-1 axis
  Tensor squeeze(std::int64_t axis) const;
  Tensor unsqueeze(std::int64_t axis) const;
  Tensor contiguous() const;  // this tensor when already contiguous, else a copy
  Tensor copy() const;        // always a new buffer
  // The same values, through which tj::grad sends no gradient (PyTorch's detach, JAX's
  // stop_gradient). Costs nothing: the plan drops it.
  Tensor detach() const;

  // ---- reductions (axes may be negative; empty axes means all) ----
  Tensor sum(Reduction mode = Reduction::strict) const;
  Tensor sum(const std::vector<std::int64_t>& axes, bool keepdims = false,
             Reduction mode = Reduction::strict) const;
  Tensor mean(Reduction mode = Reduction::strict) const;
  Tensor mean(const std::vector<std::int64_t>& axes, bool keepdims = false,
              Reduction mode = Reduction::strict) const;
  // The variance over `axes` (all when empty): the centred sum of squares divided by
  // max(0, n - correction), PyTorch 2's `correction` (numpy's `ddof`; its default 0 is numpy's).
  // std is its square root, whose gradient is 0 where the variance is 0 (PyTorch's). Integers
  // and bool are promoted to f32.
  Tensor var(const std::vector<std::int64_t>& axes = {}, bool keepdims = false,
             double correction = 0) const;
  Tensor std(const std::vector<std::int64_t>& axes = {}, bool keepdims = false,
             double correction = 0) const;
  Tensor prod(Reduction mode = Reduction::strict) const;
  Tensor prod(const std::vector<std::int64_t>& axes, bool keepdims = false,
              Reduction mode = Reduction::strict) const;
  Tensor max() const;
  Tensor max(const std::vector<std::int64_t>& axes, bool keepdims = false) const;
  Tensor min() const;
  Tensor min(const std::vector<std::int64_t>& axes, bool keepdims = false) const;
  Tensor argmax() const;  // over the flattened tensor
  Tensor argmax(std::int64_t axis, bool keepdims = false) const;
  Tensor argmin() const;
  Tensor argmin(std::int64_t axis, bool keepdims = false) const;
  Tensor any() const;
  Tensor any(const std::vector<std::int64_t>& axes, bool keepdims = false) const;
  Tensor all() const;
  Tensor all(const std::vector<std::int64_t>& axes, bool keepdims = false) const;

  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl);
  const std::shared_ptr<detail::TensorImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

}  // namespace tensorjit
