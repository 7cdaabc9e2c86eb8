// Random IR graphs for tests (header-only, shared by every suite): the text IR round-trips them,
// canonicalize must keep their bits, the JIT must compute what the interpreter computes on them.
//
//   tensorjit::testing::RandomGraphOptions options;
//   options.seed = 42;
//   options.elementwise_only = true;   // sources, views and elementwise ops: one loop kernel
//   options.bind_inputs = true;        // inputs own buffers of random values, special ones included
//   ir::Graph graph = tensorjit::testing::random_graph(options);
//
// The same options give the same graph (std::mt19937_64 and no unordered iteration). Graphs use
// every op of ops.def (reductions, scans, orderings, gathers with indices in range, scatter_adds
// and matmul unless elementwise_only), every dtype of
// `options.dtypes` with casts inserted where an op's operand kind demands, extents 0, 1 and primes,
// every view (reshape, permute, expand with new leading axes, slice with negative steps), inputs
// with permuted, padded, negative and zero strides, and several outputs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include <tensorjit/ir/graph.hpp>

namespace tensorjit::testing {

namespace ir = tensorjit::ir;

struct RandomGraphOptions {
  std::uint64_t seed = 0;
  int max_nodes = 24;        // stop adding ops once the graph holds this many nodes (casts,
                             // expands and sources it inserts count too)
  int max_outputs = 3;       // 1 to max_outputs outputs, the last node built always among them
  bool elementwise_only = false;  // only sources, views and unary/binary/ternary ops
  bool bind_inputs = false;  // inputs get buffers filled with random values; else unbound
  bool special_values = true;  // NaN, +-inf, -0, subnormals, INT_MIN, -1, 0 among the values
  bool fast_reductions = false;  // also ReductionMode::fast (results may then differ in bits)
  int max_rank = 4;          // at most ir::kMaxRank
  std::int64_t max_elements = 256;  // per node
  double zero_extent_probability = 0.03;  // per extent of a fresh shape
  // The dtypes of sources and operands; comparisons still give bool, argmax i64, integer sums i64.
  std::vector<DType> dtypes = {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean,
                               DType::f16, DType::bf16};
  // Ops never picked at random (say, ops a backend does not lower yet). The casts and expands the
  // builder inserts to fit operands to an op still appear.
  std::vector<ir::Op> excluded_ops;
  // Elementwise ops drawn for most elementwise nodes (60%), so that a graph is dense in a few ops
  // and their edge cases (swarm testing: a fuzzer finds more when each run leaves most features out).
  std::vector<ir::Op> favoured_ops;
};

// ---- random values ----

// One random value of T; with `special_values`, about one in six is an edge case of the type.
template <typename T> T random_element(std::mt19937_64& rng, bool special_values) {
  std::uniform_int_distribution<int> percent(0, 99);
  if constexpr (std::is_same_v<T, bool>) {
    return percent(rng) < 50;
  } else if constexpr (is_storage_float_v<T>) {
    // The edge cases of the 16-bit types (their float ones round to 0 or inf): the least
    // subnormal, the largest subnormal, the least normal, the largest finite, inf, NaN, -0.
    constexpr bool half = std::is_same_v<T, float16_t>;
    if (special_values && percent(rng) < 16) {
      const std::uint16_t specials[] = {0x0001, 0x8001, half ? 0x03FF : 0x007F, half ? 0x0400 : 0x0080,
                                        half ? 0x7BFF : 0x7F7F, half ? 0xFBFF : 0xFF7F,
                                        half ? 0x7C00 : 0x7F80, half ? 0xFC00 : 0xFF80,
                                        half ? 0x7E00 : 0x7FC0, 0x8000, 0x0000};
      return T::from_bits(specials[std::uniform_int_distribution<std::size_t>(0, std::size(specials) - 1)(rng)]);
    }
    return T(random_element<float>(rng, false));
  } else if constexpr (std::is_floating_point_v<T>) {
    using limits = std::numeric_limits<T>;
    if (special_values && percent(rng) < 16) {
      const T specials[] = {limits::quiet_NaN(), -limits::quiet_NaN(), limits::infinity(),
                            -limits::infinity(), T(-0.0),  T(0.0),  limits::denorm_min(),
                            -limits::denorm_min(), limits::min(), limits::max(), limits::lowest(),
                            T(1),  T(-1), T(0.5)};
      return specials[std::uniform_int_distribution<std::size_t>(0, std::size(specials) - 1)(rng)];
    }
    int kind = percent(rng);
    if (kind < 20) return static_cast<T>(std::uniform_int_distribution<int>(-8, 8)(rng));
    if (kind < 90) return static_cast<T>(std::uniform_real_distribution<double>(-4.0, 4.0)(rng));
    return static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
  } else {
    using limits = std::numeric_limits<T>;
    if (special_values && percent(rng) < 16) {
      const T specials[] = {limits::min(), limits::max(), T(-1), T(0), T(1),
                            static_cast<T>(limits::digits), static_cast<T>(limits::min() + 1)};
      return specials[std::uniform_int_distribution<std::size_t>(0, std::size(specials) - 1)(rng)];
    }
    if (percent(rng) < 85) return static_cast<T>(std::uniform_int_distribution<int>(-10, 10)(rng));
    return std::uniform_int_distribution<T>(limits::min(), limits::max())(rng);
  }
}

// Fills `count` elements of `dtype` at `data` with random values.
inline void fill_random(void* data, DType dtype, std::int64_t count, std::mt19937_64& rng,
                        bool special_values) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* values = static_cast<T*>(data);
    for (std::int64_t i = 0; i < count; ++i) values[i] = random_element<T>(rng, special_values);
  });
}

// A buffer that holds every element `layout` reaches, filled with random values.
inline std::shared_ptr<ir::Buffer> random_buffer(const ir::Layout& layout, DType dtype,
                                                 std::mt19937_64& rng, bool special_values) {
  auto [low, high] = layout.extent();
  (void)low;  // the layouts made here never reach below element 0
  auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(high) * itemsize(dtype));
  fill_random(buffer->data(), dtype, high, rng, special_values);
  return buffer;
}

// The same graph with every input bound to a fresh buffer of random values (for parsed graphs,
// whose inputs are unbound); the rest of the graph is rebuilt on top, nothing else changes.
inline ir::Graph bind_random_inputs(const ir::Graph& graph, std::uint64_t seed,
                                    bool special_values = true) {
  std::mt19937_64 rng(seed);
  std::unordered_map<const ir::Node*, ir::NodePtr> rebuilt;
  for (const auto& node : ir::topological_order(graph)) {
    if (node->op() == ir::Op::input) {
      const auto& input = node->attr<ir::InputAttr>();
      rebuilt[node.get()] = ir::make_input(
          random_buffer(input.layout, input.dtype, rng, special_values), input.dtype, input.layout);
      continue;
    }
    std::vector<ir::NodePtr> inputs;
    for (const auto& in : node->inputs()) inputs.push_back(rebuilt.at(in.get()));
    rebuilt[node.get()] = node->with_inputs(std::move(inputs));
  }
  ir::Graph bound;
  for (const auto& output : graph.outputs) bound.outputs.push_back(rebuilt.at(output.get()));
  return bound;
}

// ---- the generator ----

class RandomGraphBuilder {
 public:
  explicit RandomGraphBuilder(RandomGraphOptions options)
      : options_(std::move(options)), rng_(options_.seed) {
    options_.max_rank = std::clamp(options_.max_rank, 0, ir::kMaxRank);
    if (options_.dtypes.empty()) options_.dtypes = {DType::f32};
  }

  ir::Graph build() {
    const int op_attempts = options_.max_nodes * 4;
    source(pick(options_.dtypes), random_shape(uniform(0, options_.max_rank)));
    for (int attempt = 0; attempt < op_attempts && size() < options_.max_nodes; ++attempt) {
      add_random_op();
    }
    // The last node, then other nodes nothing uses (so that most of the pool is reachable).
    ir::Graph graph;
    graph.outputs.push_back(pool_.back());
    std::unordered_map<const ir::Node*, bool> used;
    for (const auto& node : pool_) {
      for (const auto& input : node->inputs()) used[input.get()] = true;
    }
    std::vector<ir::NodePtr> unused;
    for (const auto& node : pool_) {
      if (!used[node.get()] && node != pool_.back()) unused.push_back(node);
    }
    std::shuffle(unused.begin(), unused.end(), rng_);
    int wanted = uniform(1, std::max(1, options_.max_outputs));
    for (const auto& node : unused) {
      if (static_cast<int>(graph.outputs.size()) >= wanted) break;
      if (std::find(graph.outputs.begin(), graph.outputs.end(), node) == graph.outputs.end()) {
        graph.outputs.push_back(node);
      }
    }
    return graph;
  }

 private:
  // ---- random choices ----

  int uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  bool chance(double probability) { return std::bernoulli_distribution(probability)(rng_); }
  // By value: the pool grows (and moves) while a picked node is still in use.
  template <typename T> T pick(const std::vector<T>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng_)];
  }
  int size() const { return static_cast<int>(pool_.size()); }
  bool excluded(ir::Op op) const {
    return std::find(options_.excluded_ops.begin(), options_.excluded_ops.end(), op) !=
           options_.excluded_ops.end();
  }
  // Mostly one of the last nodes built, so that ops chain into deep graphs rather than fan out.
  ir::NodePtr pick_recent() {
    if (!chance(0.6)) return pick(pool_);
    return pool_[pool_.size() - 1 - std::min<std::size_t>(uniform(0, 3), pool_.size() - 1)];
  }

  std::int64_t random_extent() {
    if (chance(options_.zero_extent_probability)) return 0;
    static constexpr std::int64_t kExtents[] = {1, 1, 2, 3, 5, 7, 11};
    return kExtents[uniform(0, static_cast<int>(std::size(kExtents)) - 1)];
  }

  static std::int64_t numel(const ir::Shape& shape) {
    std::int64_t count = 1;
    for (auto extent : shape) count *= extent;
    return count;
  }

  // A shape of `rank` axes with at most max_elements elements (large extents shrink to 1).
  ir::Shape random_shape(int rank) {
    ir::Shape shape;
    for (int axis = 0; axis < rank; ++axis) shape.push_back(random_extent());
    for (auto& extent : shape) {
      if (numel(shape) <= options_.max_elements) break;
      extent = 1;
    }
    return shape;
  }

  std::vector<DType> allowed_dtypes(ir::OperandKind kind) const {
    std::vector<DType> allowed;
    for (DType dtype : options_.dtypes) {
      bool ok = kind == ir::OperandKind::any ||
                (kind == ir::OperandKind::numeric && !is_bool(dtype)) ||
                (kind == ir::OperandKind::floating && is_floating(dtype)) ||
                (kind == ir::OperandKind::integer && is_integer(dtype)) ||
                (kind == ir::OperandKind::boolean && is_bool(dtype)) ||
                (kind == ir::OperandKind::wide && dtype == DType::i64);
      if (ok) allowed.push_back(dtype);
    }
    return allowed;
  }

  ir::NodePtr add(ir::NodePtr node) {
    pool_.push_back(node);
    return node;
  }

  // ---- sources ----

  ir::Layout random_layout(const ir::Shape& shape) {
    const int rank = static_cast<int>(shape.size());
    // Strides of a contiguous buffer whose axes are padded and stored in a permuted order.
    std::vector<int> storage_order(rank);
    std::iota(storage_order.begin(), storage_order.end(), 0);
    if (chance(0.3)) std::shuffle(storage_order.begin(), storage_order.end(), rng_);
    ir::Strides strides(rank, 0);
    std::int64_t stride = 1;
    for (int k = rank - 1; k >= 0; --k) {
      int axis = storage_order[k];
      strides[axis] = stride;
      stride *= std::max<std::int64_t>(shape[axis], 1) + (chance(0.2) ? uniform(1, 2) : 0);
    }
    std::int64_t offset = chance(0.2) ? uniform(1, 3) : 0;
    for (int axis = 0; axis < rank; ++axis) {
      if (chance(0.1)) {
        strides[axis] = 0;  // a broadcast input
      } else if (chance(0.15) && shape[axis] > 0) {
        offset += (shape[axis] - 1) * strides[axis];  // read backwards
        strides[axis] = -strides[axis];
      }
    }
    return ir::Layout{shape, strides, offset};
  }

  template <typename T> double random_start_or_step() {
    return static_cast<double>(uniform(-6, 6)) / ((std::is_floating_point_v<T> || is_storage_float_v<T>) && chance(0.5) ? 4 : 1);
  }

  ir::NodePtr source(DType dtype, const ir::Shape& shape) {
    int kind = uniform(0, 9);
    if (kind < 5) {
      ir::Layout layout = chance(0.5) ? ir::Layout::contiguous(shape) : random_layout(shape);
      std::shared_ptr<ir::Buffer> buffer;
      if (options_.bind_inputs) buffer = random_buffer(layout, dtype, rng_, options_.special_values);
      return add(ir::make_input(std::move(buffer), dtype, std::move(layout)));
    }
    if (kind < 8 || is_bool(dtype)) {
      ir::Scalar value = visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T element = random_element<T>(rng_, options_.special_values);
        if constexpr (is_storage_float_v<T>) return ir::Scalar::of(dtype, static_cast<float>(element));
        else if constexpr (std::is_floating_point_v<T>) return ir::Scalar::of(dtype, element);
        else return ir::Scalar::of_int(dtype, static_cast<std::int64_t>(element));
      });
      if (chance(0.5) || shape.empty()) return add(ir::make_constant(dtype, shape, value));
      // A scalar constant broadcast to the shape, as the API builds `x + 2`.
      auto scalar = add(ir::make_constant(dtype, {}, value));
      return add(ir::make_expand(scalar, shape));
    }
    double start = 0, step = 1;
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      start = random_start_or_step<T>();
      step = random_start_or_step<T>();
    });
    auto iota = add(ir::make_iota(dtype, numel(shape), start, step));
    return shape.size() == 1 ? iota : add(ir::make_reshape(iota, shape));
  }

  // ---- operands ----

  ir::NodePtr identity_constant(const ir::Shape& shape, DType dtype) {
    double value = pick(std::vector<double>{0.0, -0.0, 1.0, -1.0});
    return add(ir::make_constant(dtype, shape, ir::Scalar::of(dtype, value)));
  }

  ir::NodePtr coerce(ir::NodePtr node, DType dtype) {
    if (node->dtype() == dtype) return node;
    return add(ir::make_cast(std::move(node), dtype));
  }

  // Whether `from` broadcasts to `to` by expand (size-1 axes grow, new axes in front).
  static bool expands_to(const ir::Shape& from, const ir::Shape& to) {
    if (from.size() > to.size()) return false;
    for (std::size_t i = 0; i < from.size(); ++i) {
      auto target = to[to.size() - from.size() + i];
      if (from[i] != target && from[i] != 1) return false;
    }
    return true;
  }

  // A node of `shape` and `dtype`: an existing node (expanded, cast) or a new source.
  ir::NodePtr operand(const ir::Shape& shape, DType dtype) {
    if (chance(0.7)) {
      for (int attempt = 0; attempt < 8; ++attempt) {
        ir::NodePtr candidate = pick(pool_);
        if (candidate->shape() == shape) return coerce(candidate, dtype);
        if (expands_to(candidate->shape(), shape)) {
          return coerce(add(ir::make_expand(candidate, shape)), dtype);
        }
      }
    }
    if (chance(0.3)) {  // a smaller source broadcast to the shape
      ir::Shape smaller(shape.begin() + uniform(0, static_cast<int>(shape.size())), shape.end());
      for (auto& extent : smaller) extent = chance(0.5) ? 1 : extent;
      return add(ir::make_expand(source(dtype, smaller), shape));
    }
    return source(dtype, shape);
  }

  // ---- ops ----

  void add_random_op() {
    int kind = uniform(0, 99);
    if (options_.elementwise_only) kind = kind % 75;
    if (kind < 50) return add_elementwise();
    if (kind < 75) return add_view(pick_recent());
    if (kind < 90) return add_reduce(pick_recent());
    if (kind < 93) return add_scan_or_order(pick_recent());
    if (kind < 95) return add_indexing(pick_recent());
    if (kind < 97) return add_concat(pick_recent());
    add_matmul(pick_recent());
  }

  void add_elementwise() {
    std::vector<ir::Op> ops;
    for (int i = 0; i < ir::kOpCount; ++i) {
      if (ir::is_elementwise(static_cast<ir::Op>(i))) ops.push_back(static_cast<ir::Op>(i));
    }
    // Arithmetic is what models are made of, and what rewrites and fusion act on: weight it.
    static const std::vector<ir::Op> kArithmetic = {ir::Op::add, ir::Op::sub, ir::Op::mul,
                                                    ir::Op::div, ir::Op::neg, ir::Op::maximum,
                                                    ir::Op::abs, ir::Op::where};
    ir::Op op = !options_.favoured_ops.empty() && chance(0.6) ? pick(options_.favoured_ops)
                : chance(0.4)                                      ? pick(kArithmetic)
                                                                   : pick(ops);
    if (excluded(op)) return;
    auto allowed = allowed_dtypes(ir::info(op).operands);
    if (allowed.empty()) return;
    ir::NodePtr anchor = pick_recent();
    bool keep = std::find(allowed.begin(), allowed.end(), anchor->dtype()) != allowed.end();
    DType dtype = keep && chance(0.85) ? anchor->dtype() : pick(allowed);
    const ir::Shape& shape = anchor->shape();
    if (op == ir::Op::cast) {
      add(ir::make_cast(anchor, pick(options_.dtypes)));
    } else if (op == ir::Op::where) {
      if (allowed_dtypes(ir::OperandKind::boolean).empty()) return;
      auto condition = operand(shape, DType::boolean);
      add(ir::Node::make(op, {condition, coerce(anchor, dtype), operand(shape, dtype)}));
    } else if (ir::info(op).arity == 1) {
      add(ir::make_unary(op, coerce(anchor, dtype)));
    } else {
      auto first = coerce(anchor, dtype);
      // x op x, and x op 0, -0.0, 1 or -1, often: the patterns algebraic rewrites look for.
      auto second = chance(0.1) ? first : chance(0.2) ? identity_constant(shape, dtype) : operand(shape, dtype);
      if (chance(0.5)) std::swap(first, second);
      add(ir::make_binary(op, first, second));
    }
  }

  // A random shape with `count` elements (count > 0): its prime factors spread over the axes.
  ir::Shape shape_with_count(std::int64_t count) {
    int rank = uniform(count == 1 ? 0 : 1, std::max(1, options_.max_rank));
    ir::Shape shape(rank, 1);
    for (std::int64_t factor = 2; count > 1;) {
      if (count % factor != 0) {
        ++factor;
        continue;
      }
      shape[uniform(0, rank - 1)] *= factor;
      count /= factor;
    }
    return shape;
  }

  void add_view(const ir::NodePtr& x) {
    const ir::Shape& shape = x->shape();
    const int rank = x->rank();
    static const std::vector<ir::Op> kViews = {ir::Op::reshape, ir::Op::permute, ir::Op::expand,
                                               ir::Op::slice};
    ir::Op view = pick(kViews);
    if (excluded(view)) return;
    switch (view) {
      case ir::Op::reshape: {
        ir::Shape target;
        if (x->numel() > 0) {
          target = shape_with_count(x->numel());
        } else {  // any shape with a zero extent
          target = random_shape(uniform(1, std::max(1, options_.max_rank)));
          target[uniform(0, static_cast<int>(target.size()) - 1)] = 0;
        }
        add(ir::make_reshape(x, target));
        return;
      }
      case ir::Op::permute: {
        std::vector<int> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        add(ir::make_permute(x, perm));
        return;
      }
      case ir::Op::expand: {
        ir::Shape target = shape;
        for (auto& extent : target) {
          if (extent == 1 && chance(0.6)) extent = pick(std::vector<std::int64_t>{2, 3, 5});
        }
        if (rank < options_.max_rank && chance(0.4)) target.insert(target.begin(), uniform(1, 3));
        if (numel(target) > options_.max_elements) target = shape;
        add(ir::make_expand(x, target));  // possibly to the same shape: an identity expand
        return;
      }
      default: {  // slice
        std::vector<int> axes;
        for (int axis = 0; axis < rank; ++axis) {
          if (shape[axis] > 0) axes.push_back(axis);
        }
        if (axes.empty()) return;
        int axis = pick(axes);
        std::int64_t extent = shape[axis];
        std::int64_t step = pick(std::vector<std::int64_t>{1, 1, 2, 3, -1, -1, -2});
        std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, extent - 1)(rng_);
        std::int64_t reach = step > 0 ? (extent - 1 - start) / step + 1 : start / -step + 1;
        std::int64_t count = std::uniform_int_distribution<std::int64_t>(0, reach)(rng_);
        add(ir::Node::make(ir::Op::slice, {x}, ir::SliceAttr{axis, start, step, count}));
        return;
      }
    }
  }

  void add_reduce(const ir::NodePtr& x) {
    static const std::vector<ir::Op> kReduceOps = {
        ir::Op::reduce_sum, ir::Op::reduce_prod, ir::Op::reduce_max, ir::Op::reduce_min,
        ir::Op::argmax,     ir::Op::argmin,      ir::Op::reduce_any, ir::Op::reduce_all};
    ir::Op op = pick(kReduceOps);
    if (excluded(op)) return;
    bool needs_identity_free = op == ir::Op::reduce_max || op == ir::Op::reduce_min ||
                               op == ir::Op::argmax || op == ir::Op::argmin;
    std::vector<int> axes;
    for (int axis = 0; axis < x->rank(); ++axis) {
      if ((x->shape()[axis] > 0 || !needs_identity_free) && chance(0.5)) axes.push_back(axis);
    }
    if (op == ir::Op::argmax || op == ir::Op::argmin) {
      if (axes.empty()) return;
      axes = {pick(axes)};
    }
    ir::NodePtr input = x;
    if (ir::info(op).operands == ir::OperandKind::boolean) {
      if (allowed_dtypes(ir::OperandKind::boolean).empty()) return;
      input = coerce(x, DType::boolean);
    }
    auto mode = options_.fast_reductions && chance(0.3) ? ir::ReductionMode::fast
                                                        : ir::ReductionMode::strict;
    add(ir::make_reduce(op, input, axes, chance(0.4), mode));
  }

  // cumsum, sort or argsort along a random axis; sort and argsort keep a random prefix (topk).
  void add_scan_or_order(const ir::NodePtr& x) {
    static const std::vector<ir::Op> kOps = {ir::Op::cumsum, ir::Op::sort, ir::Op::argsort};
    const ir::Op op = pick(kOps);
    if (excluded(op) || x->rank() == 0) return;
    const int axis = uniform(0, x->rank() - 1);
    if (op == ir::Op::cumsum) {
      add(ir::make_cumsum(x, axis));
      return;
    }
    const auto extent = static_cast<int>(x->shape()[static_cast<std::size_t>(axis)]);
    const std::int64_t count = chance(0.6) ? extent : uniform(0, extent);
    add(ir::make_sort(op, x, axis, chance(0.5), count));
  }

  // A gather or a scatter_add along a random axis of x whose indices are all in range: an integer
  // operand modulo the axis's extent, sometimes minus it (negative indices count from the end).
  void add_indexing(const ir::NodePtr& x) {
    const ir::Op op = chance(0.6) ? ir::Op::gather : ir::Op::scatter_add;
    const auto index_dtypes = allowed_dtypes(ir::OperandKind::integer);
    if (excluded(op) || x->rank() == 0 || index_dtypes.empty()) return;
    std::vector<int> axes;
    for (int axis = 0; axis < x->rank(); ++axis)
      if (x->shape()[static_cast<std::size_t>(axis)] > 0) axes.push_back(axis);
    if (axes.empty()) return;
    const int axis = pick(axes);
    const std::int64_t extent = x->shape()[static_cast<std::size_t>(axis)];
    ir::Shape index_shape = x->shape();
    index_shape[static_cast<std::size_t>(axis)] = random_extent();
    if (numel(index_shape) > options_.max_elements) return;
    const DType index_dtype = pick(index_dtypes);
    // Sometimes one index per row of the last axis, broadcast along it (take's embedding lookup):
    // a reduction over the last axis then makes it a row kernel's prologue, whose gathers read
    // whole gathered rows (codegen/row_kernel.hpp, "Gathers").
    const bool per_row = op == ir::Op::gather && axis + 1 < x->rank() && chance(0.4);
    ir::Shape drawn_shape = index_shape;
    if (per_row) drawn_shape.back() = 1;
    auto modulus = add(ir::make_constant(index_dtype, drawn_shape, ir::Scalar::of_int(index_dtype, extent)));
    auto indices = add(ir::make_binary(ir::Op::mod, operand(drawn_shape, index_dtype), modulus));
    if (chance(0.3)) indices = add(ir::make_binary(ir::Op::sub, indices, modulus));
    if (per_row) {
      indices = add(ir::make_expand(indices, index_shape));
      // The reduction over the rows that makes the row step, at times.
      if (chance(0.7)) {
        auto gathered = add(ir::make_gather(x, indices, ir::IndexAttr{axis, 0, ir::IndexOrigin::take_along_axis}));
        if (is_bool(gathered->dtype()) || gathered->shape().back() == 0) return;
        auto total = add(ir::make_reduce(ir::Op::reduce_max, gathered, {x->rank() - 1}, true, ir::ReductionMode::strict));
        add(ir::make_binary(ir::Op::sub, gathered, add(ir::make_expand(total, gathered->shape()))));
        return;
      }
    }
    if (op == ir::Op::gather) {
      add(ir::make_gather(x, indices, ir::IndexAttr{axis, 0, ir::IndexOrigin::take_along_axis}));
      return;
    }
    const auto numeric = allowed_dtypes(ir::OperandKind::numeric);
    if (numeric.empty()) return;
    const DType dtype = is_bool(x->dtype()) ? pick(numeric) : x->dtype();
    add(ir::make_scatter_add(coerce(x, dtype), indices, operand(index_shape, dtype),
                             ir::IndexAttr{axis, 0, ir::IndexOrigin::scatter_add}));
  }

  // A concat of x and one to three other operands along a random axis (new ones of random
  // extents there: existing nodes, expands, sources; x again, or a size-1 view of each, as stack
  // makes), or a nested concat when the pool holds one.
  void add_concat(ir::NodePtr x) {
    if (excluded(ir::Op::concat)) return;
    const bool stacked = chance(0.25) && x->rank() < options_.max_rank;
    if (x->rank() == 0 || stacked) {
      ir::Shape grown = x->shape();
      grown.insert(grown.begin() + uniform(0, x->rank()), 1);
      x = add(ir::make_reshape(x, grown));
    }
    const int axis = uniform(0, x->rank() - 1);
    const auto a = static_cast<std::size_t>(axis);
    std::vector<ir::NodePtr> parts{x};
    ir::Shape total = x->shape();
    for (int n = uniform(1, 3); n > 0; --n) {
      const bool again = chance(0.2);
      ir::Shape shape = x->shape();
      if (!again) shape[a] = stacked ? 1 : random_extent();
      ir::Shape grown = total;
      grown[a] += shape[a];
      if (numel(grown) > options_.max_elements) break;
      parts.push_back(again ? x : operand(shape, x->dtype()));
      total = grown;
    }
    if (chance(0.5)) std::shuffle(parts.begin(), parts.end(), rng_);
    add(ir::make_concat(std::move(parts), axis));
  }

  void add_matmul(const ir::NodePtr& x) {
    if (excluded(ir::Op::matmul)) return;
    auto allowed = allowed_dtypes(ir::OperandKind::numeric);
    if (allowed.empty()) return;
    DType dtype = pick(allowed);
    ir::NodePtr left = x;
    if (x->rank() < 2) {
      if (x->numel() == 0 || options_.max_rank < 2) return;
      left = add(ir::make_reshape(x, {1, x->numel()}));
    }
    ir::Shape right_shape = left->shape();
    std::int64_t k = right_shape[right_shape.size() - 1];
    right_shape[right_shape.size() - 2] = k;
    right_shape[right_shape.size() - 1] = random_extent();
    if (numel(right_shape) > options_.max_elements) right_shape.back() = 1;
    ir::Shape out_shape = left->shape();
    out_shape.back() = right_shape.back();
    if (numel(right_shape) > options_.max_elements || numel(out_shape) > options_.max_elements) return;
    auto right = operand(right_shape, dtype);
    add(ir::make_binary(ir::Op::matmul, coerce(left, dtype), right));
  }

  RandomGraphOptions options_;
  std::mt19937_64 rng_;
  std::vector<ir::NodePtr> pool_;
};

inline ir::Graph random_graph(const RandomGraphOptions& options) {
  return RandomGraphBuilder(options).build();
}

}  // namespace tensorjit::testing
