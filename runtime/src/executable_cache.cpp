#include "runtime/src/executable_cache.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include <tensorjit/ir/node_map.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

#include <tensorjit/ir/pipeline.hpp>

namespace tensorjit::detail {
namespace {

// Appends the graph's structure as binary words: per node in topological order its op, dtype,
// shape, typed attributes (no buffer or id: inputs are told apart by position) and the positions
// of its inputs; then the outputs' positions. The words are stored one inlined store each
// (std::string::append, called 40 times per eval of a*b + c, was a tenth of its cost; a
// std::pmr::vector's push_back, not inlined, 7%) into the writer's own array, or a heap array once
// a graph of more than about 30 nodes outgrows it, and become the cache's string key only when a
// graph is new. A large graph's array is sized from its node count up front: MiniLM's 758 nodes
// (about 9,000 words) grew it six times an eval, each a zeroed allocation and a copy.
class KeyWriter {
 public:
  KeyWriter() = default;
  KeyWriter(const KeyWriter&) = delete;
  KeyWriter& operator=(const KeyWriter&) = delete;

  // Room for `count` words without growing.
  void reserve(std::size_t count) {
    if (count > static_cast<std::size_t>(end_ - next_)) grow(count + static_cast<std::size_t>(next_ - begin_));
  }
  void word(std::int64_t v) {
    if (next_ == end_) grow(2 * static_cast<std::size_t>(end_ - begin_));
    *next_++ = v;
  }
  void words(std::span<const std::int64_t> vs) {
    word(static_cast<std::int64_t>(vs.size()));
    for (auto v : vs) word(v);
  }
  void real(double v) { word(std::bit_cast<std::int64_t>(v)); }
  std::string_view key() const {
    return {reinterpret_cast<const char*>(begin_), static_cast<std::size_t>(next_ - begin_) * sizeof(std::int64_t)};
  }

  // `argument`: a constant the kernels read as an argument (is_argument).
  void attrs(const ir::Attrs& attrs, bool argument) {
    word(static_cast<std::int64_t>(attrs.index()));
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, ir::InputAttr>) {
            word(static_cast<int>(a.dtype));
            words(a.layout.strides);
            word(a.layout.offset);
          } else if constexpr (std::is_same_v<A, ir::ConstantAttr>) {
            // An argument's value is bound at each run (executable_for): not part of the key, but
            // that it is one is, so that no literal's words can stand for it.
            word(argument);
            if (!argument) {
              real(a.value.f);
              word(a.value.i);
            }
          } else if constexpr (std::is_same_v<A, ir::IotaAttr>) {
            real(a.start);
            real(a.step);
            words(a.layout.strides);
            word(a.layout.offset);
          } else if constexpr (std::is_same_v<A, ir::ShapeAttr>) {
            words(a.shape);
          } else if constexpr (std::is_same_v<A, ir::PermuteAttr>) {
            for (int p : a.perm) word(p);
          } else if constexpr (std::is_same_v<A, ir::SliceAttr>) {
            word(a.axis);
            word(a.start);
            word(a.step);
          } else if constexpr (std::is_same_v<A, ir::CastAttr>) {
            word(static_cast<int>(a.dtype));
          } else if constexpr (std::is_same_v<A, ir::ReduceAttr>) {
            word(static_cast<std::int64_t>(a.axes.size()));
            for (int axis : a.axes) word(axis);
            word(a.keepdims);
            word(static_cast<int>(a.mode));
          } else if constexpr (std::is_same_v<A, ir::ScanAttr>) {
            word(a.axis);
          } else if constexpr (std::is_same_v<A, ir::SortAttr>) {
            word(a.axis);
            word(a.descending);
            word(a.count);
          } else if constexpr (std::is_same_v<A, ir::IndexAttr>) {
            word(a.axis);
            word(a.index_axes);
            word(static_cast<int>(a.origin));
          } else if constexpr (std::is_same_v<A, ir::ConcatAttr>) {
            word(a.axis);
          } else {
            // A new kind of attribute must reach the key: two graphs that differ only in it would
            // otherwise share one plan.
            static_assert(std::is_same_v<A, std::monostate>, "plan key: add the new attribute's fields");
          }
        },
        attrs);
  }

 private:
  // Moves the words to a heap array of `capacity` words (uninitialized past them). Out of line, so
  // that word() is small enough for GCC to inline at each of its calls (it did not with grow()
  // inside).
  [[gnu::cold, gnu::noinline]] void grow(std::size_t capacity) {
    const std::size_t used = static_cast<std::size_t>(next_ - begin_);
    auto larger = std::make_unique_for_overwrite<std::int64_t[]>(capacity);
    std::copy(begin_, next_, larger.get());
    heap_ = std::move(larger);
    begin_ = heap_.get();
    next_ = begin_ + used;
    end_ = begin_ + capacity;
  }

  std::array<std::int64_t, 256> inline_;
  std::unique_ptr<std::int64_t[]> heap_;  // null until the inline array is full
  std::int64_t* begin_ = inline_.data();
  std::int64_t* next_ = inline_.data();
  std::int64_t* end_ = inline_.data() + inline_.size();
};

struct Cache {
  std::mutex mutex;
  std::list<std::pair<std::string, std::shared_ptr<Executable>>> recent;  // most recent first
  std::unordered_map<std::string_view, decltype(recent)::iterator> index;
};

// Deliberately never destroyed: its executables hold compiled kernels, which must not be freed
// at exit after the JIT that owns their code (static destructors run in no useful order).
Cache& cache() {
  static Cache* const instance = new Cache;
  return *instance;
}

// Constants whose value no pass looks at (ir::is_structural_constant), and every key a `philox`
// reads (a draw with key 0 or 1 compiles the same kernel as with any other key), that an op reads
// (directly or through views), unless the constant is also an output (filled contiguously, as
// users expect of a result): kernels read them as arguments, so a loop whose scalars or keys
// change each step compiles nothing new.
// A graph holds a few at most: a vector searched in order, no allocation for the usual none.
using Arguments = std::vector<const ir::Node*>;

bool is_argument(const Arguments& arguments, const ir::Node* node) {
  return std::find(arguments.begin(), arguments.end(), node) != arguments.end();
}

Arguments argument_constants(const ir::Graph& graph, const std::vector<ir::NodePtr>& order) {
  Arguments arguments;
  for (const auto& node : order) {
    if (ir::is_movement(node->op())) continue;
    for (const auto& in : node->inputs()) {
      const ir::Node* base = ir::view_base(in.get());
      if (base->op() != ir::Op::constant) continue;
      const auto& constant = base->attr<ir::ConstantAttr>();
      const bool output = std::any_of(graph.outputs.begin(), graph.outputs.end(),
                                      [&](const ir::NodePtr& out) { return out.get() == base; });
      const bool key = node->op() == ir::Op::philox && in == node->input(0);
      if (!output && (key || !ir::is_structural_constant(constant.dtype, constant.value)) &&
          !is_argument(arguments, base))
        arguments.push_back(base);
    }
  }
  return arguments;
}

std::shared_ptr<Executable> build(const ir::Graph& graph, const Arguments& arguments) {
  // The template: the same graph over slots, so that the cached plan holds no user memory, no
  // argument's value and no user node (one would keep a value it realizes alive, and count as a
  // reader of it for Node::consumer_count and its reach). An input becomes an input over a slot
  // of its layout; an argument constant, an input over a one-element slot read with zero
  // strides; every other source a copy, so that every node above it is the template's own. The
  // slots are made in topological order, the order executable_for lists the leaves in.
  std::vector<std::shared_ptr<ir::Buffer>> slots;
  ir::Graph template_graph = ir::replace_nodes(graph, [&](const ir::NodePtr& node) -> ir::NodePtr {
    if (node->op() == ir::Op::constant && is_argument(arguments, node.get())) {
      const auto& constant = node->attr<ir::ConstantAttr>();
      slots.push_back(ir::Buffer::wrap(nullptr, itemsize(constant.dtype), {}));
      return ir::make_input(slots.back(), constant.dtype,
                            ir::Layout{constant.shape, ir::Strides(constant.shape.size(), 0), 0});
    }
    if (node->op() != ir::Op::input) return node->inputs().empty() ? ir::Node::make(node->op(), {}, node->attrs()) : nullptr;
    ir::InputAttr slot_input = node->attr<ir::InputAttr>();
    slots.push_back(ir::Buffer::wrap(nullptr, slot_input.buffer->bytes(), {}));
    slot_input.buffer = slots.back();
    slot_input.id = ir::next_input_id();
    return ir::Node::make(ir::Op::input, {}, std::move(slot_input));
  });
  return std::make_shared<Executable>(ir::plan_graph(template_graph), std::move(slots));
}

}  // namespace

std::shared_ptr<Executable> executable_for(const ir::Graph& graph, const std::vector<ir::NodePtr>& order,
                                           std::vector<const ir::Node*>& leaves) {
  const Arguments arguments = argument_constants(graph, order);
  ir::NodeMap<std::int64_t> position(order.size());
  KeyWriter writer;
  // About 12 words a node: op, dtype, shape, attributes and inputs.
  writer.reserve(order.size() * 12);
  leaves.clear();
  leaves.reserve(order.size());
  for (const auto& node : order) {
    const bool argument = node->op() == ir::Op::constant && is_argument(arguments, node.get());
    position.insert(node.get(), static_cast<std::int64_t>(position.size()));
    writer.word(static_cast<int>(node->op()));
    writer.word(static_cast<int>(node->dtype()));
    writer.words(node->shape());
    writer.attrs(node->attrs(), argument);
    for (const auto& in : node->inputs()) writer.word(*position.find(in.get()));
    if (node->op() == ir::Op::input || argument) leaves.push_back(node.get());
  }
  for (const auto& out : graph.outputs) writer.word(*position.find(out.get()));

  Cache& c = cache();
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.index.find(writer.key()); it != c.index.end()) {
      c.recent.splice(c.recent.begin(), c.recent, it->second);
      return it->second->second;
    }
  }
  std::shared_ptr<Executable> built = build(graph, arguments);
  std::lock_guard lock(c.mutex);
  if (auto it = c.index.find(writer.key()); it != c.index.end()) return it->second->second;
  c.recent.emplace_front(std::string(writer.key()), built);
  c.index.emplace(c.recent.front().first, c.recent.begin());
  if (c.recent.size() > kExecutables) {
    c.index.erase(c.recent.back().first);
    c.recent.pop_back();
  }
  return built;
}

void bind_leaves(const Executable& executable, const std::vector<const ir::Node*>& leaves, ValueTable& values) {
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const ir::Node* leaf = leaves[i];
    if (leaf->op() == ir::Op::input) {
      values.bind(executable.slots[i].get(), leaf->attr<ir::InputAttr>().buffer);
      continue;
    }
    const auto& constant = leaf->attr<ir::ConstantAttr>();
    auto buffer = ir::Buffer::allocate(itemsize(constant.dtype));
    visit_dtype(constant.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      *static_cast<T*>(buffer->data()) = ir::scalar_value<T>(constant.value);
    });
    values.bind_owned(executable.slots[i].get(), std::move(buffer));
  }
}

}  // namespace tensorjit::detail
