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

// Where a float's zero keys (0.0 and -0.0) and NaN keys lie in a sorted array of entries: the
// two runs whose values the keys do not tell (sort_keys::value_from_key). Empty for integers.
struct SpecialRuns {
  std::int64_t zero_begin = 0, zero_end = 0, nan_begin = 0, nan_end = 0;
};

template <typename Value, typename Key, typename Entry>
SpecialRuns special_runs(const Entry* sorted, std::int64_t n, bool descending) {
  SpecialRuns runs;
  if constexpr (std::is_floating_point_v<Value>) {
    const auto run_of = [&](Value value) {
      const Key key = key_of<Value, Key>(value, descending);
      const Entry* first = std::partition_point(sorted, sorted + n, [&](const Entry& e) { return e.key < key; });
      return std::pair(first, std::partition_point(first, sorted + n, [&](const Entry& e) { return e.key == key; }));
    };
    const auto [zero_first, zero_last] = run_of(Value(0));
    const auto [nan_first, nan_last] = run_of(std::numeric_limits<Value>::quiet_NaN());
    runs = {zero_first - sorted, zero_last - sorted, nan_first - sorted, nan_last - sorted};
  }
  return runs;
}

// Writes the first `count` results from the sorted entries, in chunks over the caller's pool:
// each value from its key (vectorized where the results are contiguous), but inside the special
// runs, where special_value(i) gives it; each position from the entry's payload.
template <typename Value, typename Key, typename Entry, typename SpecialValue>
void write_results(const SortRowArgs& args, const Entry* sorted, const SpecialRuns& runs,
                   const SpecialValue& special_value) {
  constexpr bool kPositions = !std::is_same_v<Entry, radix::KeyEntry<Key>>;
  auto* values = static_cast<Value*>(args.values);
  const auto from_keys = [&](std::int64_t begin, std::int64_t end) {
    const bool descending = args.descending;
    if (values && args.values_stride == 1) {
      for (std::int64_t i = begin; i < end; ++i) values[i] = sort_keys::value_from_key<Value>(sorted[i].key, descending);
    } else if (values) {
      for (std::int64_t i = begin; i < end; ++i)
        values[i * args.values_stride] = sort_keys::value_from_key<Value>(sorted[i].key, descending);
    }
  };
  const auto from_special = [&](std::int64_t begin, std::int64_t end) {
    if (values)
      for (std::int64_t i = begin; i < end; ++i) values[i * args.values_stride] = special_value(i);
  };
  const std::int64_t chunks =
      std::clamp<std::int64_t>(args.count / radix::kMinChunk, 1, std::max(args.parallel_for.threads, 1));
  run_tasks(args.parallel_for, chunks, [&](std::int64_t c) {
    const std::int64_t begin = args.count * c / chunks, end = args.count * (c + 1) / chunks;
    if constexpr (kPositions) {
      if (args.positions)
        for (std::int64_t i = begin; i < end; ++i)
          args.positions[i * args.positions_stride] = static_cast<std::int64_t>(sorted[i].payload);
    }
    // The chunk's pieces before, inside and between the two runs (disjoint; either may come first).
    std::pair<std::int64_t, std::int64_t> special[2] = {{runs.zero_begin, runs.zero_end}, {runs.nan_begin, runs.nan_end}};
    if (special[1].first < special[0].first) std::swap(special[0], special[1]);
    std::int64_t at = begin;
    for (const auto& [first, last] : special) {
      const std::int64_t inside = std::clamp(first, at, end), after = std::clamp(last, at, end);
      from_keys(at, inside);
      from_special(inside, after);
      at = after;
    }
    from_keys(at, end);
  });
}

// The row's entries, make_entry(i) for each element i, sorted by the radix sort (radix_sort.hpp)
// into the workspace's slot 0.
template <typename Entry, typename MakeEntry>
const Entry* radix_sorted(const SortRowArgs& args, SortWorkspace& workspace, const MakeEntry& make_entry) {
  const auto bytes = static_cast<std::size_t>(args.length) * sizeof(Entry);
  auto* home = static_cast<Entry*>(workspace.scratch(0, bytes));
  auto* other = static_cast<Entry*>(workspace.scratch(1, bytes));
  const std::int64_t leaf = args.radix_leaf > 0 ? args.radix_leaf : radix_leaf_entries(sizeof(Entry));
  radix::radix_sort(args.length, make_entry, home, other, leaf, args.parallel_for);
  return home;
}

// A long row, each key with its position: the values of zeros and NaNs are read back from the row
// at their positions.
template <typename Value, typename Key, typename Position>
void radix_sort_positions(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Entry = radix::Entry<Key, Position>;
  const Entry* sorted = radix_sorted<Entry>(args, workspace, [&](std::int64_t i) {
    return Entry{key_of<Value, Key>(row.at(i), args.descending), static_cast<Position>(i)};
  });
  write_results<Value, Key>(args, sorted, special_runs<Value, Key>(sorted, args.length, args.descending),
                            [&](std::int64_t i) { return row.at(static_cast<std::int64_t>(sorted[i].payload)); });
}

// Only values: the entries are the keys alone (half the bytes of a key with its value), and each
// value is rebuilt from its key. A float's zero and NaN keys do not tell the bits; equal keys keep
// the row's order, so the k-th zero (NaN) of the result is the k-th of the row, whose bits a pass
// over the row collects when the result has any.
template <typename Value, typename Key>
void radix_sort_values(const SortRowArgs& args, const Row<Value>& row, SortWorkspace& workspace) {
  using Entry = radix::KeyEntry<Key>;
  const std::int64_t n = args.length;
  const Entry* sorted = radix_sorted<Entry>(
      args, workspace, [&](std::int64_t i) { return Entry{key_of<Value, Key>(row.at(i), args.descending)}; });
  const SpecialRuns runs = special_runs<Value, Key>(sorted, n, args.descending);
  const std::int64_t zeros = runs.zero_end - runs.zero_begin, nans = runs.nan_end - runs.nan_begin;
  Value* zero_bits = nullptr;
  Value* nan_bits = nullptr;
  if (zeros + nans > 0) {
    zero_bits = static_cast<Value*>(workspace.scratch(2, static_cast<std::size_t>(zeros + nans) * sizeof(Value)));
    nan_bits = zero_bits + zeros;
    std::int64_t zero = 0, nan = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const Value value = row.at(i);
      if (value != value) nan_bits[nan++] = value;
      else if (value == Value(0)) zero_bits[zero++] = value;
    }
  }
  write_results<Value, Key>(args, sorted, runs, [&](std::int64_t i) {
    return i < runs.zero_end && i >= runs.zero_begin ? zero_bits[i - runs.zero_begin] : nan_bits[i - runs.nan_begin];
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
