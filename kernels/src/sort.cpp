// sort_row (sort.hpp): the key transform, and the three ways to order a row's keys.
#include "tensorjit/kernels/sort.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "sort_select.hpp"
#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels {

struct SortWorkspace::Block {
  void* data = nullptr;
  std::size_t bytes = 0;
  ~Block() { std::free(data); }
};

SortWorkspace::SortWorkspace() = default;
SortWorkspace::~SortWorkspace() = default;

void* SortWorkspace::scratch(int slot, std::size_t bytes) {
  auto& block = blocks_[slot];
  if (!block) block = std::make_unique<Block>();
  if (block->bytes < bytes) {
    std::free(block->data);
    block->data = nullptr;
    block->bytes = 0;
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    block->data = std::aligned_alloc(64, rounded);
    if (!block->data) throw std::bad_alloc();
    block->bytes = rounded;
  }
  return block->data;
}

using sort_keys::key_of;
using sort_keys::Traits;

namespace {

// Rows shorter than this are sorted as (key, position) pairs with std::sort; the radix sort's
// histograms and passes cost more than that below a few hundred elements.
constexpr std::int64_t kSmallRow = 256;
// A selection (topk) when count * kSelectRatio <= length and count <= kMaxSelect: the kept
// positions are then few enough that most elements are rejected by one compare.
constexpr std::int64_t kSelectRatio = 64;
constexpr std::int64_t kMaxSelect = 1024;

template <typename Value> struct Row {
  const Value* input;
  std::int64_t stride;
  Value at(std::int64_t i) const { return input[i * stride]; }
};

template <typename Value> void write(const SortRowArgs& args, std::int64_t i, std::int64_t position, Value value) {
  if (args.values) static_cast<Value*>(args.values)[i * args.values_stride] = value;
  if (args.positions) args.positions[i * args.positions_stride] = position;
}

// Short rows: (key, position) pairs are distinct, so std::sort gives the stable order.
template <typename Value, typename Key>
void sort_small(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Pair = std::pair<Key, std::int64_t>;
  auto* pairs = static_cast<Pair*>(workspace.scratch(0, static_cast<std::size_t>(args.length) * sizeof(Pair)));
  for (std::int64_t i = 0; i < args.length; ++i) pairs[i] = {key_of<Value, Key>(row.at(i), args.descending), i};
  std::sort(pairs, pairs + args.length);
  for (std::int64_t i = 0; i < args.count; ++i) write(args, i, pairs[i].second, row.at(pairs[i].second));
}

// A few positions of a long row: the best `count` (key, position) pairs so far, in order; a later
// element enters only with a key below the worst kept one (an equal key comes later: it loses).
template <typename Value, typename Key>
void select_best(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Pair = std::pair<Key, std::int64_t>;
  auto* best = static_cast<Pair*>(workspace.scratch(0, static_cast<std::size_t>(args.count) * sizeof(Pair)));
  const std::int64_t count = args.count;
  for (std::int64_t i = 0; i < count; ++i) best[i] = {key_of<Value, Key>(row.at(i), args.descending), i};
  std::sort(best, best + count);
  std::int64_t i = count;
  while (i < args.length) {
    const Key worst = best[count - 1].first;
    i += first_candidate<Value, Key>(row.input + i * row.stride, row.stride, args.length - i, worst, args.descending);
    if (i >= args.length) break;
    const Pair entering{key_of<Value, Key>(row.at(i), args.descending), i};
    // After every kept pair with a key <= the entering one (they came earlier), before the rest.
    Pair* place = std::upper_bound(best, best + count - 1, entering.first,
                                   [](Key key, const Pair& kept) { return key < kept.first; });
    std::move_backward(place, best + count - 1, best + count);
    *place = entering;
    ++i;
  }
  for (std::int64_t r = 0; r < count; ++r) write(args, r, best[r].second, row.at(best[r].second));
}

template <typename Key, typename Payload> struct Item {
  Key key;
  Payload payload;
};

// Least-significant digit first, 8 bits a pass: each pass is a stable counting sort, so keys that
// are equal keep the order of their positions. A digit that every key shares is skipped.
template <typename Value, typename Key, typename Payload, bool kPositions>
void radix_sort(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Entry = Item<Key, Payload>;
  constexpr int kDigits = sizeof(Key);
  const std::int64_t n = args.length;
  auto* from = static_cast<Entry*>(workspace.scratch(0, static_cast<std::size_t>(n) * sizeof(Entry)));
  auto* to = static_cast<Entry*>(workspace.scratch(1, static_cast<std::size_t>(n) * sizeof(Entry)));
  auto* counts = static_cast<std::int64_t*>(workspace.scratch(2, kDigits * 256 * sizeof(std::int64_t)));
  std::fill_n(counts, kDigits * 256, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const Value value = row.at(i);
    const Key key = key_of<Value, Key>(value, args.descending);
    if constexpr (kPositions) from[i] = {key, static_cast<Payload>(i)};
    else from[i] = {key, value};
    for (int d = 0; d < kDigits; ++d) ++counts[d * 256 + ((key >> (8 * d)) & 0xff)];
  }
  for (int d = 0; d < kDigits; ++d) {
    std::int64_t* count = counts + d * 256;
    if (count[(from[0].key >> (8 * d)) & 0xff] == n) continue;
    std::int64_t offset = 0;
    for (int b = 0; b < 256; ++b) offset += std::exchange(count[b], offset);
    for (std::int64_t i = 0; i < n; ++i) {
      const Entry entry = from[i];
      to[count[(entry.key >> (8 * d)) & 0xff]++] = entry;
    }
    std::swap(from, to);
  }
  for (std::int64_t i = 0; i < args.count; ++i) {
    if constexpr (kPositions) {
      // The value from its key where the key tells its bits; from the row for zeros and NaNs.
      const auto position = static_cast<std::int64_t>(from[i].payload);
      Value value{};
      if (args.values && !sort_keys::value_of_key(from[i].key, args.descending, value)) value = row.at(position);
      write(args, i, position, value);
    } else {
      write(args, i, 0, from[i].payload);
    }
  }
}

template <SortElement E> void sort_row_of(const SortRowArgs& args, SortWorkspace& workspace) {
  using Value = typename Traits<E>::Value;
  using Key = typename Traits<E>::Key;
  const Row<Value> row{static_cast<const Value*>(args.input), args.input_stride};
  if (args.count == 0) return;
  if (args.length < kSmallRow) return sort_small<Value, Key>(args, row, workspace);
  if (args.count * kSelectRatio <= args.length && args.count <= kMaxSelect)
    return select_best<Value, Key>(args, row, workspace);
  // Only values: each key carries its element's own bits, so no position is looked up again.
  if (!args.positions) return radix_sort<Value, Key, Value, false>(args, row, workspace);
  if (args.length <= std::int64_t{0xffffffff}) return radix_sort<Value, Key, std::uint32_t, true>(args, row, workspace);
  radix_sort<Value, Key, std::uint64_t, true>(args, row, workspace);
}

}  // namespace

bool avx512_selection_available() { return cpu_supports(InstructionSet::avx512); }

void sort_row(const SortRowArgs& args, SortWorkspace& workspace) {
  if (args.length < 0 || args.count < 0 || args.count > args.length)
    throw std::invalid_argument("sort_row: count " + std::to_string(args.count) + " and length " +
                                std::to_string(args.length) + " must satisfy 0 <= count <= length");
  if (args.length > 0 && !args.input) throw std::invalid_argument("sort_row: no input for a row of elements");
  switch (args.element) {
    case SortElement::f32: return sort_row_of<SortElement::f32>(args, workspace);
    case SortElement::f64: return sort_row_of<SortElement::f64>(args, workspace);
    case SortElement::i32: return sort_row_of<SortElement::i32>(args, workspace);
    case SortElement::i64: return sort_row_of<SortElement::i64>(args, workspace);
    case SortElement::boolean: return sort_row_of<SortElement::boolean>(args, workspace);
  }
  throw std::invalid_argument("sort_row: unknown element type");
}

}  // namespace tensorjit::kernels
