// sort_row (sort.hpp): the key transform, and the three ways to order a row's keys.
#include "tensorjit/kernels/sort.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "radix_sort.hpp"
#include "run_tasks.hpp"
#include "sort_select.hpp"
#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels {

SortWorkspace::SortWorkspace()
    : allocate_([](std::size_t bytes) {
        void* data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!data) throw std::bad_alloc();
        return std::shared_ptr<void>(data, std::free);
      }) {}
SortWorkspace::SortWorkspace(Allocate allocate) : allocate_(std::move(allocate)) {}
SortWorkspace::~SortWorkspace() = default;

void* SortWorkspace::scratch(int slot, std::size_t bytes) {
  Block& block = blocks_[slot];
  if (block.bytes < bytes) {
    block = Block{};  // the old memory goes first
    block.data = allocate_(bytes);
    block.bytes = bytes;
  }
  return block.data.get();
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

// The radix sort's leaf: a bucket of entries that, with the copy its passes write, takes half of
// L2, so that its LSD passes run in cache.
std::int64_t radix_leaf_entries(std::size_t entry_bytes) {
  static const std::int64_t l2 = std::max<std::int64_t>(host_cache_sizes().l2_bytes, 256 << 10);
  return std::max<std::int64_t>(l2 / 4 / static_cast<std::int64_t>(entry_bytes), 1024);
}

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

// The order's first `count` entries of a long row by the radix sort (radix_sort.hpp), each key with
// its position; written out in chunks over the caller's pool like the sort's own passes.
template <typename Value, typename Key, typename Position>
void radix_sort_positions(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Entry = radix::Entry<Key, Position>;
  const std::int64_t n = args.length;
  auto* home = static_cast<Entry*>(workspace.scratch(0, static_cast<std::size_t>(n) * sizeof(Entry)));
  auto* other = static_cast<Entry*>(workspace.scratch(1, static_cast<std::size_t>(n) * sizeof(Entry)));
  const std::int64_t leaf = args.radix_leaf > 0 ? args.radix_leaf : radix_leaf_entries(sizeof(Entry));
  radix::radix_sort(
      n,
      [&](std::int64_t i) {
        return Entry{key_of<Value, Key>(row.at(i), args.descending), static_cast<Position>(i)};
      },
      home, other, leaf, args.parallel_for);
  const std::int64_t chunks =
      std::clamp<std::int64_t>(args.count / radix::kMinChunk, 1, std::max(args.parallel_for.threads, 1));
  run_tasks(args.parallel_for, chunks, [&](std::int64_t c) {
    for (std::int64_t i = args.count * c / chunks; i < args.count * (c + 1) / chunks; ++i) {
      // The value from its key where the key tells its bits; from the row for zeros and NaNs.
      const auto position = static_cast<std::int64_t>(home[i].payload);
      Value value{};
      if (args.values && !sort_keys::value_of_key(home[i].key, args.descending, value)) value = row.at(position);
      write(args, i, position, value);
    }
  });
}

// Only values: the entries are the keys alone (half the bytes of a key with its value), and each
// value is rebuilt from its key. A float's zero key (0.0 and -0.0) and its NaN key (every NaN) do
// not tell the bits; equal keys keep the row's order, so the k-th zero (NaN) of the result is the
// k-th of the row, whose bits a pass over the row collects when the result has any.
template <typename Value, typename Key>
void radix_sort_values(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Entry = radix::KeyEntry<Key>;
  const std::int64_t n = args.length;
  auto* home = static_cast<Entry*>(workspace.scratch(0, static_cast<std::size_t>(n) * sizeof(Entry)));
  auto* other = static_cast<Entry*>(workspace.scratch(1, static_cast<std::size_t>(n) * sizeof(Entry)));
  const std::int64_t leaf = args.radix_leaf > 0 ? args.radix_leaf : radix_leaf_entries(sizeof(Entry));
  radix::radix_sort(
      n, [&](std::int64_t i) { return Entry{key_of<Value, Key>(row.at(i), args.descending)}; }, home, other, leaf,
      args.parallel_for);
  // Where the runs of zero and NaN keys lie in the result, and their elements' own bits.
  struct Run {
    Key key;
    std::int64_t begin = 0, end = 0;
    Value* bits = nullptr;
  };
  Run zeros{}, nans{};
  if constexpr (std::is_floating_point_v<Value>) {
    const auto run_of = [&](Value value) {
      const Key key = key_of<Value, Key>(value, args.descending);
      const auto [first, last] = std::equal_range(home, home + n, Entry{key},
                                                  [](const Entry& a, const Entry& b) { return a.key < b.key; });
      return Run{key, first - home, last - home, nullptr};
    };
    zeros = run_of(Value(0));
    nans = run_of(std::numeric_limits<Value>::quiet_NaN());
    const std::int64_t specials = (zeros.end - zeros.begin) + (nans.end - nans.begin);
    if (specials > 0) {
      zeros.bits = static_cast<Value*>(workspace.scratch(2, static_cast<std::size_t>(specials) * sizeof(Value)));
      nans.bits = zeros.bits + (zeros.end - zeros.begin);
      std::int64_t zero = 0, nan = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const Value value = row.at(i);
        if (value != value) nans.bits[nan++] = value;
        else if (value == Value(0)) zeros.bits[zero++] = value;
      }
    }
  }
  const std::int64_t chunks =
      std::clamp<std::int64_t>(args.count / radix::kMinChunk, 1, std::max(args.parallel_for.threads, 1));
  run_tasks(args.parallel_for, chunks, [&](std::int64_t c) {
    for (std::int64_t i = args.count * c / chunks; i < args.count * (c + 1) / chunks; ++i) {
      Value value{};
      if (!sort_keys::value_of_key(home[i].key, args.descending, value))
        value = home[i].key == zeros.key ? zeros.bits[i - zeros.begin] : nans.bits[i - nans.begin];
      write(args, i, 0, value);
    }
  });
}

template <SortElement E> void sort_row_of(const SortRowArgs& args, SortWorkspace& workspace) {
  using Value = typename Traits<E>::Value;
  using Key = typename Traits<E>::Key;
  const Row<Value> row{static_cast<const Value*>(args.input), args.input_stride};
  if (args.count == 0) return;
  if (args.length < kSmallRow) return sort_small<Value, Key>(args, row, workspace);
  if (args.count * kSelectRatio <= args.length && args.count <= kMaxSelect)
    return select_best<Value, Key>(args, row, workspace);
  if (!args.positions) return radix_sort_values<Value, Key>(args, row, workspace);
  if (args.length <= std::int64_t{0xffffffff}) return radix_sort_positions<Value, Key, std::uint32_t>(args, row, workspace);
  radix_sort_positions<Value, Key, std::uint64_t>(args, row, workspace);
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
