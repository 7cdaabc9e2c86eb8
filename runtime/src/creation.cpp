// Creation functions: each makes one source node (an input over a new buffer, a constant or an
// iota; linspace adds the elementwise ops of numpy's formula to its iota), so creating a large
// constant tensor allocates nothing until it is used.
#include <tensorjit/functions.hpp>

#include <cmath>
#include <cstring>
#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::check_dtype;
using detail::node_of;
using detail::wrap;

namespace {

// Checks what Node::make checks too, so that the message names the function the user called.
void check_shape(std::string_view op, const Shape& shape, DType dtype) {
  TJ_CHECK(shape.size() <= static_cast<std::size_t>(ir::kMaxRank))
      << op << ": shape " << ir::shape_str(shape) << " has rank " << shape.size()
      << ", more than the maximum of " << ir::kMaxRank;
  const std::int64_t numel = ir::checked_numel(shape, op);
  const auto size = static_cast<std::int64_t>(itemsize(dtype));
  std::int64_t bytes = 0;
  TJ_CHECK(!__builtin_mul_overflow(numel, size, &bytes))
      << op << ": " << dtype_name(dtype) << ir::shape_str(shape) << " is too large to allocate: " << numel
      << " elements of " << size << " bytes are more than 2^63 - 1 bytes; make the shape smaller";
}

// full, zeros and ones under the name the user called.
Tensor constant_named(std::string_view op, const Shape& shape, double value, DType dtype) {
  check_dtype(dtype, op);
  check_shape(op, shape, dtype);
  return wrap(ir::make_constant(dtype, shape, ir::Scalar::of(dtype, value)));
}

template <typename T> Tensor from_values(const Shape& shape, const T* values, std::size_t count) {
  check_shape("tensor", shape, dtype_of<T>());
  const std::int64_t numel = ir::checked_numel(shape, "tensor");
  TJ_CHECK(static_cast<std::int64_t>(count) == numel)
      << "tensor: shape " << ir::shape_str(shape) << " holds " << numel << " elements but "
      << count << " values were given";
  constexpr DType dtype = dtype_of<T>();
  auto buffer = ir::Buffer::allocate(count * sizeof(T));
  if (count) std::memcpy(buffer->data(), values, count * sizeof(T));
  return wrap(ir::make_input(std::move(buffer), dtype, ir::Layout::contiguous(shape)));
}

// Flattens nested initializer lists, checking that every level is rectangular.
template <typename T> void flatten(std::initializer_list<T> list, Shape& shape, std::size_t depth,
                                   std::vector<T>& out) {
  if (shape.size() <= depth) shape.push_back(static_cast<std::int64_t>(list.size()));
  TJ_CHECK(shape[depth] == static_cast<std::int64_t>(list.size()))
      << "tensor: ragged nested list: a row of " << list.size() << " values at depth " << depth
      << " where " << shape[depth] << " were expected";
  out.insert(out.end(), list.begin(), list.end());
}
template <typename T> void flatten(std::initializer_list<std::initializer_list<T>> list, Shape& shape,
                                   std::size_t depth, std::vector<T>& out) {
  if (shape.size() <= depth) shape.push_back(static_cast<std::int64_t>(list.size()));
  TJ_CHECK(shape[depth] == static_cast<std::int64_t>(list.size()))
      << "tensor: ragged nested list: " << list.size() << " entries at depth " << depth << " where "
      << shape[depth] << " were expected";
  for (const auto& inner : list) flatten(inner, shape, depth + 1, out);
}

}  // namespace

template <typename T> Tensor tensor(const Shape& shape, const std::vector<T>& values) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<unsigned char> bytes(values.begin(), values.end());
    check_shape("tensor", shape, boolean);
    TJ_CHECK(static_cast<std::int64_t>(values.size()) == ir::checked_numel(shape, "tensor"))
        << "tensor: shape " << ir::shape_str(shape) << " holds " << ir::checked_numel(shape, "tensor")
        << " elements but " << values.size() << " values were given";
    auto buffer = ir::Buffer::allocate(bytes.size());
    if (!bytes.empty()) std::memcpy(buffer->data(), bytes.data(), bytes.size());
    return wrap(ir::make_input(std::move(buffer), boolean, ir::Layout::contiguous(shape)));
  } else {
    return from_values(shape, values.data(), values.size());
  }
}

template <typename T> Tensor tensor(std::initializer_list<std::initializer_list<T>> rows) {
  Shape shape;
  std::vector<T> values;
  flatten(rows, shape, 0, values);
  if (shape.size() < 2) shape.push_back(0);  // an empty outer list: shape [0, 0]
  return tensor<T>(shape, values);
}
template <typename T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> planes) {
  Shape shape;
  std::vector<T> values;
  for (const auto& plane : planes) {
    if (shape.empty()) shape.push_back(static_cast<std::int64_t>(planes.size()));
    flatten(plane, shape, 1, values);
  }
  if (shape.empty()) shape = {0, 0, 0};
  while (shape.size() < 3) shape.push_back(0);
  return tensor<T>(shape, values);
}
template <typename T>
Tensor tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>> cubes) {
  Shape shape{static_cast<std::int64_t>(cubes.size())};
  std::vector<T> values;
  for (const auto& cube : cubes)
    for (const auto& plane : cube) {
      if (shape.size() < 2) shape.push_back(static_cast<std::int64_t>(cube.size()));
      TJ_CHECK(shape[1] == static_cast<std::int64_t>(cube.size()))
          << "tensor: ragged nested list: " << cube.size() << " entries at depth 1 where " << shape[1]
          << " were expected";
      flatten(plane, shape, 2, values);
    }
  while (shape.size() < 4) shape.push_back(0);
  return tensor<T>(shape, values);
}

#define TENSORJIT_INSTANTIATE_TENSOR(T)                                                       \
  template Tensor tensor<T>(const Shape&, const std::vector<T>&);                             \
  template Tensor tensor<T>(std::initializer_list<std::initializer_list<T>>);                 \
  template Tensor tensor<T>(std::initializer_list<std::initializer_list<std::initializer_list<T>>>); \
  template Tensor tensor<T>(std::initializer_list<                                            \
                            std::initializer_list<std::initializer_list<std::initializer_list<T>>>>);
TENSORJIT_INSTANTIATE_TENSOR(float)
TENSORJIT_INSTANTIATE_TENSOR(double)
TENSORJIT_INSTANTIATE_TENSOR(std::int32_t)
TENSORJIT_INSTANTIATE_TENSOR(std::int64_t)
TENSORJIT_INSTANTIATE_TENSOR(bool)
#undef TENSORJIT_INSTANTIATE_TENSOR

Tensor full(const Shape& shape, double value, DType dtype) { return constant_named("full", shape, value, dtype); }
Tensor zeros(const Shape& shape, DType dtype) { return constant_named("zeros", shape, 0.0, dtype); }
Tensor ones(const Shape& shape, DType dtype) { return constant_named("ones", shape, 1.0, dtype); }
Tensor zeros_like(const Tensor& like) {
  detail::check_defined(like, "zeros_like");
  return zeros(like.shape(), like.dtype());
}
Tensor ones_like(const Tensor& like) {
  detail::check_defined(like, "ones_like");
  return ones(like.shape(), like.dtype());
}

Tensor arange(double start, double stop, double step, DType dtype) {
  check_dtype(dtype, "arange");
  TJ_CHECK(step != 0) << "arange: step must not be zero";
  TJ_CHECK(std::isfinite(start) && std::isfinite(stop) && std::isfinite(step))
      << "arange: start " << start << ", stop " << stop << " and step " << step << " must be finite";
  const double count = std::ceil((stop - start) / step);
  TJ_CHECK(count < 9.0e18) << "arange: " << count << " elements are too many";
  const auto n = static_cast<std::int64_t>(count > 0 ? count : 0);
  check_shape("arange", {n}, dtype);
  if (is_integer(dtype)) {
    // numpy's integer arange: the first two values converted to the dtype (truncated), then their
    // difference as the step of the rest, so arange(0, 5, 1.5, i32) is [0, 1, 2, 3] (PyTorch
    // agrees there), where start + i * step truncated gave [0, 1, 3, 4]. The count stays that of
    // the arguments as given.
    const double first = std::trunc(start);
    step = std::trunc(start + step) - first;
    start = first;
  }
  return wrap(ir::make_iota(dtype, n, start, step));
}
Tensor arange(std::int64_t stop, DType dtype) { return arange(0.0, static_cast<double>(stop), 1.0, dtype); }

Tensor linspace(double start, double stop, std::int64_t num, DType dtype) {
  check_dtype(dtype, "linspace");
  TJ_CHECK(num >= 0) << "linspace: num must be non-negative, got " << num;
  check_shape("linspace", {num}, dtype);
  TJ_CHECK(std::isfinite(start) && std::isfinite(stop))
      << "linspace: start " << start << " and stop " << stop << " must be finite";
  // numpy's linspace (numpy/_core/function_base.py) step by step, in f64 and then converted:
  // i * step + start with step = delta / div, or (i / div) * delta where that step is 0 (a
  // subnormal delta), i * delta when num is 1; then the last element is stop exactly (with
  // start + (num - 1) * step, linspace(-1, 0.3, 129) ended in 0.30000000000000004), and integer
  // dtypes are floored (numpy since 1.20), where a conversion truncates.
  const double delta = stop - start;
  const std::int64_t div = num - 1;
  const Tensor index = arange(0.0, static_cast<double>(num), 1.0, f64);
  Tensor values;
  if (div <= 0)
    values = index * delta;
  else if (delta / static_cast<double>(div) == 0)
    values = index / static_cast<double>(div) * delta;
  else
    values = index * (delta / static_cast<double>(div));
  values = values + start;
  if (div > 0) values = where(index == static_cast<double>(div), stop, values);
  if (is_integer(dtype)) values = values - remainder(values, as_operand(values, 1.0));
  return values.astype(dtype);
}

Tensor from_blob(void* data, const Shape& shape, const std::vector<std::int64_t>& strides, DType dtype,
                 std::function<void()> owner) {
  return detail::tensor_over(data, shape, strides, dtype, std::move(owner), false);
}

Tensor detail::tensor_over(void* data, const Shape& shape, const std::vector<std::int64_t>& strides, DType dtype,
                           std::function<void()> owner, bool constant) {
  check_dtype(dtype, "from_blob");
  check_shape("from_blob", shape, dtype);
  TJ_CHECK(data != nullptr || ir::checked_numel(shape, "from_blob") == 0)
      << "from_blob: data is null for a non-empty " << dtype_name(dtype) << ir::shape_str(shape);
  TJ_CHECK(reinterpret_cast<std::uintptr_t>(data) % itemsize(dtype) == 0)
      << "from_blob: data is not aligned for " << dtype_name(dtype);
  ir::Layout layout = strides.empty() ? ir::Layout::contiguous(shape)
                                      : ir::Layout{shape, strides, 0};
  TJ_CHECK(layout.strides.size() == shape.size())
      << "from_blob: " << strides.size() << " strides for the rank-" << shape.size() << " shape "
      << ir::shape_str(shape);
  // The buffer spans what the strides reach: [low, high) relative to `data`. A negative stride
  // reaches below `data`, so the buffer starts there and the layout's offset points back at it.
  auto [low, high] = layout.extent();
  char* base = static_cast<char*>(data) + low * static_cast<std::int64_t>(itemsize(dtype));
  layout.offset = -low;
  const std::size_t bytes = static_cast<std::size_t>(high - low) * itemsize(dtype);
  auto buffer = constant ? ir::Buffer::wrap_constant(base, bytes, std::move(owner))
                         : ir::Buffer::wrap(base, bytes, std::move(owner));
  return wrap(ir::make_input(std::move(buffer), dtype, std::move(layout)));
}

}  // namespace tensorjit
