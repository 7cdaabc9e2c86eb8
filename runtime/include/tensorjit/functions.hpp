// Creation functions, elementwise math, operators, matmul and the composite layers.
// Names and semantics follow numpy and PyTorch where the two agree; promotion and scalars follow
// PyTorch (docs/contracts.md, contract 11).
#pragma once

#include <functional>
#include <utility>

#include <tensorjit/tensor.hpp>

namespace tensorjit {

// ---- creation ----

// `shape` filled with `values` in row-major order; the counts must agree.
template <typename T> Tensor tensor(const Shape& shape, const std::vector<T>& values);
template <typename T> Tensor tensor(const Shape& shape, std::initializer_list<T> values) {
  return tensor<T>(shape, std::vector<T>(values));
}
// Nested lists, rank 1 to 4; ragged lists throw.
template <typename T> Tensor tensor(std::initializer_list<T> values) {
  return tensor<T>(Shape{static_cast<std::int64_t>(values.size())}, std::vector<T>(values));
}
template <typename T> Tensor tensor(std::initializer_list<std::initializer_list<T>> rows);
template <typename T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> planes);
template <typename T>
Tensor tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>> cubes);

Tensor zeros(const Shape& shape, DType dtype = f32);
Tensor ones(const Shape& shape, DType dtype = f32);
Tensor full(const Shape& shape, double value, DType dtype);
template <ScalarType T> Tensor full(const Shape& shape, T value) {
  return full(shape, static_cast<double>(value), dtype_of<T>());
}
Tensor zeros_like(const Tensor& like);
Tensor ones_like(const Tensor& like);
// [start, stop) in steps of `step` (nonzero); the count is ceil((stop - start) / step). For an
// integer dtype, as numpy: the first two values truncated to integers, then steps of their
// difference (arange(0, 5, 1.5, i32) is [0, 1, 2, 3]).
Tensor arange(double start, double stop, double step = 1, DType dtype = f32);
Tensor arange(std::int64_t stop, DType dtype = i64);
// `num` values from start to stop inclusive: numpy's linspace with endpoint=True, element for
// element (computed in f64 as numpy does, the last one stop exactly, integer dtypes floored).
Tensor linspace(double start, double stop, std::int64_t num, DType dtype = f32);
// The n x m identity (m = n when negative): ones on the diagonal, computed from two iotas.
Tensor eye(std::int64_t n, std::int64_t m = -1, DType dtype = f32);
// A rank-0 tensor.
template <ScalarType T> Tensor scalar(T value) { return full(Shape{}, value); }
// External memory, not copied: `strides` in elements (empty: row-major), `owner` runs when no
// tensor or node uses the memory any more (KFR's finalizer). Every element the strides reach must
// lie inside the memory the caller owns; `data` must be aligned for the dtype.
// `owner` runs once, on whichever thread drops the last reference, from a destructor: it must not
// throw, and an exception leaving it ends the program through std::terminate (there is no caller
// to report it to). Catch inside `owner` whatever its own work may throw.
Tensor from_blob(void* data, const Shape& shape, const std::vector<std::int64_t>& strides, DType dtype,
                 std::function<void()> owner = {});

// ---- evaluation ----
// Materialises several tensors in one schedule: a value they share is computed once.
void eval(const std::vector<Tensor>& tensors);

// ---- inspection ----
// The graph an eval of these tensors would run, in the text IR (.tjir) that tensorjit-dump reads.
// Values already evaluated appear as inputs.
std::string graph_text(const std::vector<Tensor>& tensors);

// What the JIT did in this process so far.
struct JitStatistics {
  std::uint64_t compiles = 0;     // kernels built, optimized and compiled
  std::uint64_t memory_hits = 0;  // kernels found in the in-memory cache
  std::uint64_t disk_hits = 0;    // kernels loaded from TENSORJIT_CACHE_DIR instead of compiled
  std::uint64_t disk_rejects = 0; // cache files found corrupt or foreign, and ignored
  std::uint64_t tier_ups = 0;     // quick kernels compiled again, optimized, in the background
};
JitStatistics jit_statistics();

// A loop kernel runs quick code first and is compiled again, optimized, on a background thread
// when it is used a second time (TENSORJIT_TIERED, docs/codegen.md "Tiers"). Blocks until every
// such compile asked for so far has finished, so that the evals after it run optimized code: for
// a benchmark that times the steady state on a busy core, where the background thread would
// otherwise share the core with the timed evals. An ordinary program never needs it.
void wait_for_tier_ups();

// ---- memory ----
// Results of 128 KiB and more are mapped from the kernel (in huge pages from 4 MiB). When freed
// they are kept for reuse by the next result of the same rounded size, up to
// TENSORJIT_BUFFER_CACHE_MB (default 1024) in all, oldest returned first: a loop of evals then
// writes memory already mapped instead of faulting fresh zeroed pages in each time.
// The bytes kept now, used by no tensor.
std::size_t cached_memory_bytes();
// Returns every kept buffer to the system (as PyTorch's torch.cuda.empty_cache()), and the
// matmul's packed copies of weights loaded from files (made again by the next product that reads
// one; docs/gemm.md, "Packed ahead of time").
void empty_cache();
// The tensor storage this process allocated so far: every buffer a result, a tensor() or a 0-d
// argument took (a mapping recycled from the kept ones counts too; from_blob's memory does not).
// A loop that assigns in place (Tensor::assign, tj::optim) adds nothing for its parameters.
struct MemoryStatistics {
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
};
MemoryStatistics memory_statistics();

// ---- elementwise: numpy broadcasting and PyTorch type promotion ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);  // true division: integers give f32
Tensor operator-(const Tensor& a);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Tensor& b);  // logical for bool, bitwise for integers
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);  // logical_not for bool, bitwise not for integers
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, const Tensor& b);

Tensor floor_divide(const Tensor& a, const Tensor& b);  // integers only: numpy //, x // 0 == 0
Tensor remainder(const Tensor& a, const Tensor& b);     // numpy %: the divisor's sign
Tensor maximum(const Tensor& a, const Tensor& b);       // NaN propagates
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi);
// Each operand converted to bool on its own (x != 0, NaN true), as NumPy: PyTorch casts both to
// their common dtype first, so its logical_and(f32 tensor, f64 scalar(1e-300)) is false.
Tensor logical_not(const Tensor& x);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);

// A C++ scalar next to a tensor is weakly typed (see ScalarType).
Tensor weak_scalar(const Tensor& like, double value);
Tensor weak_scalar(const Tensor& like, std::int64_t value);
Tensor weak_scalar(const Tensor& like, bool value);
template <ScalarType S> Tensor as_operand(const Tensor& like, S value) {
  if constexpr (std::is_same_v<S, bool>) return weak_scalar(like, value);
  else if constexpr (std::is_integral_v<S>) return weak_scalar(like, static_cast<std::int64_t>(value));
  else return weak_scalar(like, static_cast<double>(value));
}

#define TENSORJIT_SCALAR_OPERATOR(op)                                                         \
  template <ScalarType S> Tensor operator op(const Tensor& a, S s) { return a op as_operand(a, s); } \
  template <ScalarType S> Tensor operator op(S s, const Tensor& a) { return as_operand(a, s) op a; }
TENSORJIT_SCALAR_OPERATOR(+)
TENSORJIT_SCALAR_OPERATOR(-)
TENSORJIT_SCALAR_OPERATOR(*)
TENSORJIT_SCALAR_OPERATOR(/)
TENSORJIT_SCALAR_OPERATOR(<)
TENSORJIT_SCALAR_OPERATOR(<=)
TENSORJIT_SCALAR_OPERATOR(>)
TENSORJIT_SCALAR_OPERATOR(>=)
TENSORJIT_SCALAR_OPERATOR(==)
TENSORJIT_SCALAR_OPERATOR(!=)
#undef TENSORJIT_SCALAR_OPERATOR

template <ScalarType S> Tensor maximum(const Tensor& a, S s) { return maximum(a, as_operand(a, s)); }
template <ScalarType S> Tensor minimum(const Tensor& a, S s) { return minimum(a, as_operand(a, s)); }
template <ScalarType S> Tensor pow(const Tensor& a, S s) { return pow(a, as_operand(a, s)); }
template <ScalarType S> Tensor where(const Tensor& c, const Tensor& a, S s) { return where(c, a, as_operand(a, s)); }
template <ScalarType S> Tensor where(const Tensor& c, S s, const Tensor& b) { return where(c, as_operand(b, s), b); }
template <ScalarType S> Tensor clamp(const Tensor& x, S lo, S hi) {
  return clamp(x, as_operand(x, lo), as_operand(x, hi));
}

// Unary math. Integer and bool inputs of the floating functions are promoted to f32 (PyTorch).
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor square(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor exp2(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);
Tensor gelu_tanh(const Tensor& x);
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor atan(const Tensor& x);
// The angle of the point (x, y) in [-pi, pi], C99's special cases (atan2(+-0, -0) == +-pi);
// integer and bool operands are promoted to f32.
Tensor atan2(const Tensor& y, const Tensor& x);
// Integral values of the same dtype (integers are returned unchanged; bool throws). round takes
// halves to the even neighbour, as numpy.round and torch.round: round(2.5) == 2, round(-0.5) == -0.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
// Bool tensors of the IEEE classes; integer and bool inputs are finite numbers.
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);

// ---- products and layers ----
// numpy's matmul: 1-D operands are promoted and the added axis removed; batch axes broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
// Built from primitives (max, sub, exp, sum, div, ...), so that the fusion pass sees the same
// pattern as in a user's own code.
Tensor softmax(const Tensor& x, std::int64_t axis = -1);
Tensor log_softmax(const Tensor& x, std::int64_t axis = -1);
// Over the last axis; gamma and beta have the last axis's extent. Centred two-pass variance.
Tensor layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps = 1e-5);
Tensor rmsnorm(const Tensor& x, const Tensor& gamma, double eps = 1e-6);

// x with the elements above the k-th diagonal of its last two axes zeroed (tril: j > i + k) or
// below it (triu: j < i + k), numpy's; the mask is an iota comparison fused into the kernel.
Tensor tril(const Tensor& x, std::int64_t k = 0);
Tensor triu(const Tensor& x, std::int64_t k = 0);
// log(sum(exp(x))) over `axes` (all when empty), stably: the max is subtracted first (PyTorch's
// treatment of infinite maxima). Integers and bool are promoted to f32.
Tensor logsumexp(const Tensor& x, const std::vector<std::int64_t>& axes = {},
                 bool keepdims = false);

// ---- scans and ordering (along one axis; a 0-d tensor counts as one element) ----
// Running sums in increasing index order, each the previous plus the element, as a sequential loop
// (the same bits at every width and thread count); bool and integers accumulate in i64 (numpy).
Tensor cumsum(const Tensor& x, std::int64_t axis);
// Stable: equal elements keep their order, -0.0 equals 0.0. NaN sorts last ascending and first
// descending, as in PyTorch (NaN counts as the largest value).
Tensor sort(const Tensor& x, std::int64_t axis = -1, bool descending = false);
// The i64 positions along `axis` that sort takes its values from.
Tensor argsort(const Tensor& x, std::int64_t axis = -1, bool descending = false);
// The k largest along `axis` in descending order (NaN the largest), and their i64 positions; ties
// by lower position first: the first k of a stable descending sort. `auto [v, i] = topk(x, 10);`
struct TopK {
  Tensor values;
  Tensor indices;
};
TopK topk(const Tensor& x, std::int64_t k, std::int64_t axis = -1);

// ---- indexing (docs/indexing.md) ----
// Indices are i32 or i64; an index i of an axis of n elements names element i, or i + n when
// i < 0 (numpy). An index outside [-n, n) makes the eval() that reads it throw Error naming the
// function, the index and its position in `indices`; nothing is read or written out of bounds and
// every tensor stays valid. The indexed reads fuse into the kernel that consumes them.
//
// numpy.take / torch.index_select: shape x[:axis] + indices.shape + x[axis+1:].
Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis = 0);
// numpy.take_along_axis / torch.gather: result[p] = x[p with p[axis] := indices[p]]; x and
// indices have one rank, and broadcast against each other on the other axes.
Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis);
// torch.index_add (the adjoint of take along a 1-D index): base, plus values' slice j added at
// base's slice indices[j] along axis; values has base's shape but indices.size() along axis (or
// broadcasts to it) and base's dtype. Repeated indices add in increasing j, one fixed order at
// every width and thread count.
Tensor index_add(const Tensor& base, std::int64_t axis, const Tensor& indices, const Tensor& values);
// torch.scatter_add (the adjoint of take_along_axis): base, plus values[p] added at p with
// p[axis] := indices[p]; indices has base's rank and base's extents but along axis; values, of
// base's dtype, broadcasts to indices' shape or is longer (its first extents are read, as torch).
// Repeated destinations add in increasing row-major p, one fixed order.
Tensor scatter_add(const Tensor& base, std::int64_t axis, const Tensor& indices, const Tensor& values);
// indices.shape + [classes]: 1 where the last index equals indices' element (made non-negative),
// else 0.
Tensor one_hot(const Tensor& indices, std::int64_t classes, DType dtype = f32);

// ---- joining (docs/indexing.md, "Joining") ----
// numpy.concatenate / torch.cat: the tensors one after the other along `axis` (negative counts
// from the end); one rank, equal extents but along `axis`, dtypes promoted as torch.cat does; a
// 0-d tensor throws. The result is written once: each part straight into its place, a part that an
// elementwise kernel computes by that kernel (no pass of its own).
Tensor concat(const std::vector<Tensor>& tensors, std::int64_t axis = 0);
// numpy.stack / torch.stack: tensors of one shape joined along a new axis `axis` (in
// [-(rank + 1), rank]).
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t axis = 0);
// Views of consecutive pieces of x along `axis`, of the given sizes, which must add up to the
// axis's extent (torch.split with a list); nothing is copied.
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis = 0);
// numpy.pad(mode="constant"): x with widths[d].first elements of `value` (converted to x's dtype)
// before and widths[d].second after along each axis d; one pair stands for every axis. Widths are
// not negative (numpy; PyTorch's F.pad crops on negative widths: use slice).
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value = 0);

}  // namespace tensorjit
