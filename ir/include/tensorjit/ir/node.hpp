// Immutable, typed IR nodes (Halide's make(): every node is built through make(), which checks its
// inputs and attributes and throws tensorjit::Error naming the op, shapes and dtypes).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include <tensorjit/dtype.hpp>
#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/op.hpp>
#include <tensorjit/ir/shape.hpp>

namespace tensorjit::ir {

class Node;
using NodePtr = std::shared_ptr<const Node>;

// A value of any dtype: floating dtypes use `f`, integers and bool use `i`.
struct Scalar {
  double f = 0;
  std::int64_t i = 0;
  static Scalar of(DType dtype, double value);        // converts as cast does
  static Scalar of_int(DType dtype, std::int64_t value);
};
// `value` rounded to the floating `dtype` as cast rounds it (f16 and bf16 through f32), as a double.
double rounded_to(DType dtype, double value);
// Bitwise equality: -0.0 differs from 0.0, and a NaN equals the same NaN.
bool bit_equal(const Scalar& a, const Scalar& b);

enum class ReductionMode : std::uint8_t { strict, fast };

// ---- typed attributes, one struct per kind of op, never bytes read out of an untyped array ----

// A buffer with a strided layout. `id` distinguishes inputs that have no buffer yet (a parsed
// graph); two input nodes are the same value only when their ids are equal.
struct InputAttr {
  std::shared_ptr<Buffer> buffer;  // may be null: unbound (parsed text IR)
  DType dtype = DType::f32;
  Layout layout;
  std::uint64_t id = 0;
  // The buffer's version when the node was made (Buffer::version): the node stands for the
  // contents of that version. Not part of the node's structure.
  std::uint64_t version = 0;
};
struct ConstantAttr {
  DType dtype = DType::f32;
  Shape shape;
  Scalar value;
};
// The value at a multi-index is start + step * offset, computed in double (a multiply and an add,
// two roundings), then converted to dtype as cast converts; offset is the element offset an input
// of this layout would read there (layout.offset + sum index_d * layout.strides[d], never
// negative). A fresh iota has the contiguous 1-D layout, so element i is start + i * step; views
// of it fold into the layout (fold_views), and give the values of the same views of that 1-D iota.
struct IotaAttr {
  DType dtype = DType::f32;
  Layout layout;
  double start = 0;
  double step = 1;
};
struct ShapeAttr {  // reshape and expand: the result shape
  Shape shape;
};
struct PermuteAttr {
  std::vector<int> perm;
};
struct SliceAttr {  // result[i] = input[start + i * step] along axis, for i < count
  int axis = 0;
  std::int64_t start = 0;
  std::int64_t step = 1;
  std::int64_t count = 0;
};
struct CastAttr {
  DType dtype = DType::f32;
};
struct ReduceAttr {
  std::vector<int> axes;  // sorted, unique, non-negative
  bool keepdims = false;
  ReductionMode mode = ReductionMode::strict;
};

struct ScanAttr {  // cumsum: the axis scanned, non-negative
  int axis = 0;
};
struct SortAttr {  // sort, argsort: the axis ordered, the direction, how many positions are kept
  int axis = 0;
  bool descending = false;
  std::int64_t count = 0;  // 0 <= count <= the axis's extent; the result's extent along axis
};

// The public function that built a gather or scatter_add: its error messages name it and give the
// offending index's position in the indices that function was passed (docs/indexing.md).
enum class IndexOrigin : std::uint8_t { take, take_along_axis, one_hot, index_add, scatter_add };
struct IndexAttr {  // gather, scatter_add
  int axis = 0;     // the axis indexed, non-negative
  // How many axes the user's indices had, ending at `axis` of the node's indices (take and index_add
  // spread a k-axis index over the result's axes [axis - k + 1, axis]); 0: all of them.
  int index_axes = 0;
  IndexOrigin origin = IndexOrigin::take_along_axis;
};

struct ConcatAttr {  // concat: the axis the operands follow each other along, non-negative
  int axis = 0;
};

using Attrs = std::variant<std::monostate, InputAttr, ConstantAttr, IotaAttr, ShapeAttr, PermuteAttr,
                           SliceAttr, CastAttr, ReduceAttr, ScanAttr, SortAttr, IndexAttr, ConcatAttr>;

// Fresh id for a new input node (process-wide counter).
std::uint64_t next_input_id();

// What a node evaluated to: a buffer viewed through a layout.
struct Value {
  std::shared_ptr<Buffer> buffer;
  DType dtype = DType::f32;
  Layout layout;
  template <typename T> T* data() const {
    return static_cast<T*>(buffer->data()) + layout.offset;
  }
};

class Node : public std::enable_shared_from_this<Node> {
  struct MakeKey {};  // only make() constructs: every node is checked

 public:
  // The one constructor: checks arity, dtypes, shapes and attributes against the op table and
  // infers the result dtype and shape; throws tensorjit::Error on a bad call.
  static NodePtr make(Op op, std::vector<NodePtr> inputs, Attrs attrs = {});

  Op op() const { return op_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t numel() const { return numel_; }
  const std::vector<NodePtr>& inputs() const { return inputs_; }
  const NodePtr& input(int i) const { return inputs_[i]; }
  const Attrs& attrs() const { return attrs_; }
  template <typename A> const A& attr() const { return std::get<A>(attrs_); }
  // Structural hash: op, dtype, shape, attributes (bitwise for floats) and the inputs' hashes.
  std::size_t hash() const { return hash_; }

  // The same node with other inputs, or this very node when they are the same pointers.
  NodePtr with_inputs(std::vector<NodePtr> inputs) const;

  // Set when an eval materialises this node, so that later graphs that still reach it read the
  // value instead of computing it again. The node's meaning does not change. The value is dropped
  // again once the node is out of reach (below): a walk that reaches the node later computes it.
  std::shared_ptr<const Value> realized() const;
  // realized() != nullptr, without realized()'s lock: every eval asks it of each node.
  bool is_realized() const { return (state_.load(std::memory_order_acquire) & kRealized) != 0; }
  void set_realized(Value value) const;
  // Set when an eval has computed this node, kept or not (inside a fused kernel). A later eval
  // that needs the node again keeps it (runtime/src/executor.cpp): a value two evals need is
  // computed twice at most, then read, and a lazy loop never recomputes its history.
  bool computed() const { return computed_.load(std::memory_order_relaxed); }
  void mark_computed() const { computed_.store(true, std::memory_order_relaxed); }
  // How many operand slots of living nodes hold this node (x * x counts twice), reachable or not.
  std::int64_t consumer_count() const { return consumers_.load(std::memory_order_relaxed); }

  // ---- reach: which values can still be read (docs/contracts.md, contract 1) ----
  // A node is in reach while a Tensor handle points at it (a holder) or an operand slot of a
  // node that claims its operands holds it. A node claims its operands while it is in reach and
  // not realized: a walk that evaluates it may go on to them. So a realized node, or a node
  // nothing can start a walk at any more (an unrealized gradient whose every reader is realized,
  // inside a long lazy chain), claims nothing, and its operands may go out of reach in turn. A
  // realized value out of reach is dropped: nothing can read it again without a new graph built
  // over this very node, and such a graph brings the node back in reach, which claims its
  // operands again, so an eval computes it from them. Nodes keep their operands (the structure
  // tj::grad differentiates) whatever their reach; only values are released.
  void add_holder() const;
  void remove_holder() const;
  std::int64_t holders() const { return holders_.load(std::memory_order_relaxed); }
  // Operand slots of claiming nodes that hold this node: the lazy work that may still walk here.
  // An eval compares it with the reads inside its own graph: a node read from outside is one
  // that pending work (a gradient built before its loss is evaluated) will need, and the eval
  // keeps it. Tensor handles do not count: a named temporary still fuses.
  std::int64_t pending_reads() const {
    return static_cast<std::int64_t>(state_.load(std::memory_order_relaxed) >> 1) - holders();
  }

  Node(MakeKey, Op op, DType dtype, Shape shape, std::vector<NodePtr> inputs, Attrs attrs);
  // Releases the inputs without recursion (node_release.cpp): dropping the last reference to a
  // chain of a million nodes (a long lazy loop, a large text IR file) must not overflow the stack.
  ~Node();

 private:
  Op op_;
  DType dtype_;
  Shape shape_;
  std::int64_t numel_;
  std::vector<NodePtr> inputs_;
  Attrs attrs_;
  std::size_t hash_;
  // Read and written under one of a few locks shared by all nodes (node.cpp), not as a
  // std::atomic<std::shared_ptr>: libstdc++ 12's load() releases that type's internal lock with a
  // relaxed store, a data race with the next store (ThreadSanitizer, tests/runtime/test_concurrency.cpp).
  mutable std::shared_ptr<const Value> realized_;
  mutable std::atomic<bool> computed_{false};
  mutable std::atomic<std::int64_t> consumers_{0};
  // Bit 0 (kRealized): the node is realized. The rest, in steps of kReach: its reach, holders
  // plus operand slots of claiming nodes. One word, so that every change of either is one atomic
  // step and the node's claim (not realized, reach > 0) starts and ends exactly once per change.
  static constexpr std::uint64_t kRealized = 1, kReach = 2;
  mutable std::atomic<std::uint64_t> state_{0};
  mutable std::atomic<std::int64_t> holders_{0};  // part of the reach, kept apart for pending_reads
  static bool claims(std::uint64_t state) { return (state & kRealized) == 0 && state >= kReach; }
  // One step of reach (+1 or -1) on `node`, then the steps it causes on operands, by a loop over
  // a work list, not by recursion: a lazy history of a million nodes goes out of reach at once.
  static void change_reach(const Node* node, bool add);
  void drop_value_if_unreachable() const;
};

// Structural equality of two subgraphs (same ops, dtypes, shapes, attributes, input ids; float
// attributes compared bitwise, so -0.0 != 0.0 and NaN == NaN).
bool structurally_equal(const NodePtr& a, const NodePtr& b);
bool attrs_equal(const Attrs& a, const Attrs& b);

// ---- convenience builders over Node::make, used by the API and the passes ----
NodePtr make_input(std::shared_ptr<Buffer> buffer, DType dtype, Layout layout);
NodePtr make_constant(DType dtype, Shape shape, Scalar value);
// start + i * step for i in [0, count): the 1-D iota.
NodePtr make_iota(DType dtype, std::int64_t count, double start, double step);
NodePtr make_unary(Op op, NodePtr x);
NodePtr make_binary(Op op, NodePtr a, NodePtr b);
NodePtr make_cast(NodePtr x, DType dtype);
NodePtr make_reshape(NodePtr x, Shape shape);
NodePtr make_expand(NodePtr x, Shape shape);
NodePtr make_permute(NodePtr x, std::vector<int> perm);
NodePtr make_reduce(Op op, NodePtr x, std::vector<int> axes, bool keepdims,
                    ReductionMode mode = ReductionMode::strict);
NodePtr make_cumsum(NodePtr x, int axis);
NodePtr make_sort(Op op, NodePtr x, int axis, bool descending, std::int64_t count);
NodePtr make_gather(NodePtr x, NodePtr indices, IndexAttr attr);
NodePtr make_scatter_add(NodePtr base, NodePtr indices, NodePtr values, IndexAttr attr);
NodePtr make_concat(std::vector<NodePtr> parts, int axis);
// The slice along `axis` of `x` from `start`, `count` elements, step 1.
NodePtr make_slice(NodePtr x, int axis, std::int64_t start, std::int64_t count);

// The dtype a reduction op gives for an input of `dtype` (sums of integers and bools are i64).
DType reduce_result_dtype(Op op, DType dtype);
// The dtype cumsum gives and accumulates in for an input of `dtype` (integers and bools: i64).
DType scan_result_dtype(DType dtype);

// A value that is the same at every index: a constant, or an input read with zero strides (how the
// runtime passes a scalar to a kernel as an argument: runtime/src/executable_cache.cpp).
bool is_uniform(const Node& node);

// The node a chain of movement ops (views) starts from; `node` itself when it is not a view.
inline const Node* view_base(const Node* node) {
  while (is_movement(node->op())) node = node->input(0).get();
  return node;
}

}  // namespace tensorjit::ir
