// The stable radix sort behind sort_row's long rows (sort.hpp): entries of an unsigned key and a
// payload, ordered by key, entries with equal keys in the order they were made.
//
// Why not least-significant digit first alone: each LSD pass moves the whole row once per digit
// (four times for f32 keys), and a row of 16 Mi entries fits in no cache, so every pass is a trip
// through memory, and the passes cannot be split over threads without a merge. So a long row is
// first split by its most significant digit that is not the same for every key (one stable
// counting pass, a bucket per digit value), again within each bucket while it holds more than
// `leaf` entries; a bucket of at most `leaf` entries, which fits in L2 with its copy, is finished by
// LSD passes over its remaining digits there, and one of at most kInsertionLength by insertion.
// Each pass is a stable counting sort (and insertion moves an entry only past larger keys), so the
// whole is stable.
//
// The first pass over the row only counts digits; the first split makes the entries again as it
// places them (the row is not written out and read back). Splits that run through memory store
// whole lines (LineWriter).
//
// Threads: the buckets of the first split are independent, and are the tasks given to the
// caller's parallel-for, largest first (it hands tasks out in turn, so the short ones even the
// threads out at the end). The counting and the first split itself run in chunks of the row: a
// chunk's entries of one bucket go after those of every chunk before it, so the split is the
// serial one.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "run_tasks.hpp"
#include "tensorjit/kernels/parallel_for.hpp"

namespace tensorjit::kernels::radix {

template <typename Key, typename Payload> struct Entry {
  Key key;
  Payload payload;
};

// An entry that is its key alone, for a sort whose values can be rebuilt from their keys.
template <typename Key> struct KeyEntry {
  Key key;
};

inline constexpr int kDigitBits = 8;
inline constexpr int kBuckets = 1 << kDigitBits;
// Ranges this short are sorted by insertion: a counting pass's 256 buckets cost more.
inline constexpr std::int64_t kInsertionLength = 32;
// The fewest entries a chunk of the first pass gets: below, waking the pool costs more.
inline constexpr std::int64_t kMinChunk = std::int64_t{1} << 16;

template <typename Key> inline constexpr int kDigits = static_cast<int>(sizeof(Key));

template <typename Key> inline int digit(Key key, int d) {
  return static_cast<int>((key >> (kDigitBits * d)) & (kBuckets - 1));
}

// Stores one 64-byte line of entries to memory without reading the line first (SSE2's streaming
// stores; an ordinary copy elsewhere). Callers fence (fence_streamed_lines) before others read it.
inline void stream_line(void* destination, const void* line) {
#if defined(__SSE2__)
  auto* to = static_cast<__m128i*>(destination);
  const auto* from = static_cast<const __m128i*>(line);
  for (int i = 0; i < 4; ++i) _mm_stream_si128(to + i, _mm_load_si128(from + i));
#else
  std::memcpy(destination, line, 64);
#endif
}

inline void fence_streamed_lines() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// The stable counting pass's scatter into a target in memory: each bucket's entries gather in a
// 64-byte line of their own (256 lines, 16 KiB, stay in L1) and go out as a whole line once it is
// full. Scattering entry by entry, each store meets a line of one of 256 streams that is not in
// L1, and the core reads it from memory before writing it; whole streamed lines are only written.
// A bucket's first and last lines may be shared with its neighbours: only the bucket's own places
// of them are written, by ordinary stores.
template <typename E> class LineWriter {
 public:
  static_assert(64 % sizeof(E) == 0, "entries must tile a cache line");
  static constexpr std::int64_t kPerLine = 64 / static_cast<std::int64_t>(sizeof(E));

  // `target` 64-byte aligned; next[b]: the place of bucket b's next entry.
  LineWriter(E* target, const std::array<std::int64_t, kBuckets>& next) : target_(target), next_(next), first_(next) {}

  void push(int bucket, const E& entry) {
    const std::int64_t at = next_[bucket]++;
    const std::int64_t slot = at & (kPerLine - 1);
    lines_[bucket][slot] = entry;
    if (slot == kPerLine - 1) write(bucket, at - slot, kPerLine);
  }

  // Writes every bucket's last, partial line and fences the streamed ones.
  void finish() {
    for (int b = 0; b < kBuckets; ++b) {
      const std::int64_t filled = next_[b] & (kPerLine - 1);
      if (filled != 0 && next_[b] > first_[b]) write(b, next_[b] - filled, filled);
    }
    fence_streamed_lines();
  }

 private:
  // The first `count` slots of bucket b's line that begins at place `line`.
  void write(int bucket, std::int64_t line, std::int64_t count) {
    const std::int64_t from = std::max(line, first_[bucket]);  // the line may begin in the bucket before
    if (from == line && count == kPerLine) return stream_line(target_ + line, lines_[bucket]);
    std::copy(lines_[bucket] + (from - line), lines_[bucket] + count, target_ + from);
  }

  alignas(64) E lines_[kBuckets][kPerLine];
  E* target_;
  std::array<std::int64_t, kBuckets> next_, first_;
};

// Places entry(i) for i in [begin, end) at next[its digit d]++ of `target` (64-byte aligned, as
// SortWorkspace's scratch is), through a LineWriter. Out of line: the writer's 16 KiB then never
// sit in the frames of the recursion that calls it.
template <typename E, typename EntryAt>
[[gnu::noinline]] void scatter(const EntryAt& entry_at, std::int64_t begin, std::int64_t end, int d, E* target,
                               const std::array<std::int64_t, kBuckets>& next) {
  using Key = decltype(E::key);
  LineWriter<E> writer(target, next);
  for (std::int64_t i = begin; i < end; ++i) {
    const E entry = entry_at(i);
    writer.push(digit<Key>(entry.key, d), entry);
  }
  writer.finish();
}

// Sorts ranges of `home`, using `other` (as long) as the target of its passes; every range ends
// sorted in home.
template <typename E> class Sorter {
 public:
  using Key = decltype(E::key);

  Sorter(E* home, E* other, std::int64_t leaf) : home_(home), other_(other), leaf_(leaf) {}

  // Sorts entries [begin, end) of `source` (home or other), which agree on every digit above d, by
  // their digits d ... 0, and leaves them at the same places in home.
  void sort_range(E* source, std::int64_t begin, std::int64_t end, int d) const {
    const std::int64_t n = end - begin;
    if (d < 0 || n <= kInsertionLength) {
      if (d >= 0) insertion_sort(source + begin, n);
      return settle(source + begin, begin, n);
    }
    if (n <= leaf_) return sort_in_cache(source, begin, end, d);
    std::array<std::int64_t, kBuckets> counts{};
    for (std::int64_t i = begin; i < end; ++i) ++counts[digit(source[i].key, d)];
    if (counts[digit(source[begin].key, d)] == n) return sort_range(source, begin, end, d - 1);
    std::array<std::int64_t, kBuckets> starts;
    std::exclusive_scan(counts.begin(), counts.end(), starts.begin(), begin);
    E* const target = other_of(source);
    scatter([source](std::int64_t i) { return source[i]; }, begin, end, d, target, starts);
    for (int b = 0; b < kBuckets; ++b)
      if (counts[b] > 0) sort_range(target, starts[b], starts[b] + counts[b], d - 1);
  }

  // LSD passes over digits 0 ... top of entries [begin, end) of `source`, skipping a digit every
  // key of the range shares; the result is left in home.
  void sort_in_cache(E* source, std::int64_t begin, std::int64_t end, int top) const {
    const std::int64_t n = end - begin;
    std::array<std::array<std::int64_t, kBuckets>, kDigits<Key>> counts{};
    for (std::int64_t i = begin; i < end; ++i)
      for (int d = 0; d <= top; ++d) ++counts[d][digit(source[i].key, d)];
    E* from = source + begin;
    E* to = other_of(source) + begin;
    for (int d = 0; d <= top; ++d) {
      std::array<std::int64_t, kBuckets>& next = counts[d];
      if (next[digit(from[0].key, d)] == n) continue;
      std::exclusive_scan(next.begin(), next.end(), next.begin(), std::int64_t{0});
      for (std::int64_t i = 0; i < n; ++i) {
        const E entry = from[i];
        to[next[digit(entry.key, d)]++] = entry;
      }
      std::swap(from, to);
    }
    settle(from, begin, n);
  }

 private:
  E* other_of(E* array) const { return array == home_ ? other_ : home_; }

  // Moves n sorted entries at `sorted` to home's [begin, begin + n) unless they are there.
  void settle(E* sorted, std::int64_t begin, std::int64_t n) const {
    if (sorted != home_ + begin) std::copy(sorted, sorted + n, home_ + begin);
  }

  // Stable: an entry moves only past larger keys.
  static void insertion_sort(E* entries, std::int64_t n) {
    for (std::int64_t i = 1; i < n; ++i) {
      const E entry = entries[i];
      std::int64_t j = i;
      for (; j > 0 && entry.key < entries[j - 1].key; --j) entries[j] = entries[j - 1];
      entries[j] = entry;
    }
  }

  E* home_;
  E* other_;
  std::int64_t leaf_;
};

// Sorts the n entries make_entry(0) ... make_entry(n - 1) into home[0, n), stably by key; `other`
// is scratch of n entries. Ranges of at most `leaf` entries are finished in cache (above).
template <typename E, typename MakeEntry>
void radix_sort(std::int64_t n, const MakeEntry& make_entry, E* home, E* other, std::int64_t leaf,
                const ParallelFor& parallel_for) {
  using Key = decltype(E::key);
  using Histograms = std::array<std::array<std::int64_t, kBuckets>, kDigits<Key>>;
  if (n == 0) return;
  const std::int64_t threads = parallel_for.run != nullptr ? std::max(parallel_for.threads, 1) : 1;
  const std::int64_t chunks = std::clamp<std::int64_t>(n / kMinChunk, 1, threads);
  const auto chunk_begin = [&](std::int64_t c) { return n * c / chunks; };
  const Sorter<E> sorter(home, other, leaf);
  if (n <= leaf) {  // in cache from the start: its LSD passes count the digits themselves
    for (std::int64_t i = 0; i < n; ++i) home[i] = make_entry(i);
    return sorter.sort_in_cache(home, 0, n, kDigits<Key> - 1);
  }
  // The histograms first, from the keys alone: the entries are made again as the first split
  // places them, which saves writing the whole row once and reading it back.
  // Neighbouring keys often share a digit (a float's exponent): counted in one histogram, each
  // increment would wait for the one before it to be stored; even and odd elements count apart.
  std::vector<Histograms> counts(static_cast<std::size_t>(chunks), Histograms{});
  run_tasks(parallel_for, chunks, [&](std::int64_t c) {
    Histograms halves[2]{};
    const std::int64_t first = chunk_begin(c), last = chunk_begin(c + 1);
    std::int64_t i = first;
    for (; i + 1 < last; i += 2) {
      const Key even = make_entry(i).key, odd = make_entry(i + 1).key;
      for (int d = 0; d < kDigits<Key>; ++d) {
        ++halves[0][d][digit(even, d)];
        ++halves[1][d][digit(odd, d)];
      }
    }
    if (i < last)
      for (int d = 0; d < kDigits<Key>; ++d) ++halves[0][d][digit(make_entry(i).key, d)];
    Histograms& count = counts[static_cast<std::size_t>(c)];
    for (int d = 0; d < kDigits<Key>; ++d)
      for (int b = 0; b < kBuckets; ++b) count[d][b] = halves[0][d][b] + halves[1][d][b];
  });
  // The most significant digit that tells keys apart; none: every key is equal, and the entries
  // in the order they are made are sorted.
  const Key first_key = make_entry(0).key;
  int top = kDigits<Key> - 1;
  std::array<std::int64_t, kBuckets> totals{};
  for (; top >= 0; --top) {
    totals.fill(0);
    for (const Histograms& count : counts)
      for (int b = 0; b < kBuckets; ++b) totals[b] += count[top][b];
    if (totals[digit(first_key, top)] != n) break;
  }
  if (top < 0) {
    for (std::int64_t i = 0; i < n; ++i) home[i] = make_entry(i);
    return;
  }
  std::array<std::int64_t, kBuckets> starts;
  std::exclusive_scan(totals.begin(), totals.end(), starts.begin(), std::int64_t{0});
  std::vector<std::array<std::int64_t, kBuckets>> next(static_cast<std::size_t>(chunks));
  for (int b = 0; b < kBuckets; ++b) {
    std::int64_t offset = starts[b];
    for (std::int64_t c = 0; c < chunks; ++c) {
      next[static_cast<std::size_t>(c)][b] = offset;
      offset += counts[static_cast<std::size_t>(c)][top][b];
    }
  }
  run_tasks(parallel_for, chunks, [&](std::int64_t c) {
    scatter(make_entry, chunk_begin(c), chunk_begin(c + 1), top, other, next[static_cast<std::size_t>(c)]);
  });
  std::vector<int> buckets;
  for (int b = 0; b < kBuckets; ++b)
    if (totals[b] > 0) buckets.push_back(b);
  std::stable_sort(buckets.begin(), buckets.end(), [&](int a, int b) { return totals[a] > totals[b]; });
  run_tasks(parallel_for, static_cast<std::int64_t>(buckets.size()), [&](std::int64_t t) {
    const int b = buckets[static_cast<std::size_t>(t)];
    sorter.sort_range(other, starts[b], starts[b] + totals[b], top - 1);
  });
}

}  // namespace tensorjit::kernels::radix
