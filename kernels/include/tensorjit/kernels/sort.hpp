// Sorting rows of raw buffers: the kernel behind tensorjit's sort, argsort and topk. Knows nothing
// of the IR: a row is `length` elements of one type read through a stride, and the caller (the
// runtime's sort step) walks the rows and splits them over its pool.
//
// The order (the interpreter's, ir/src/interpreter_order.cpp): stable, -0.0 equal to 0.0, every
// NaN equal to every other NaN and after everything ascending, before everything descending. Of
// that order, the first `count` positions are written: the values (their own bits: -0.0 stays
// -0.0, a NaN keeps its payload) and/or the positions (int64).
//
// How: each element becomes an unsigned key whose unsigned order is that order (floats: the sign
// bit flipped, or every bit for negatives; -0.0 as 0.0; every NaN the largest key; signed
// integers: the sign bit flipped; descending: every bit inverted), with its position when
// positions are asked for. Then
//   - a short row (under kSmallRow elements): std::sort of (key, position) pairs, which are all
//     distinct, so any sort is stable;
//   - a few positions of a long row (topk: count * kSelectRatio <= length): one pass keeps the
//     best `count` (key, position) pairs in a sorted array; a block of elements that cannot enter
//     (no key below the current worst) is skipped after one vector compare (AVX-512 where the CPU
//     has it, else the portable loop: the same elements enter either way, so the same result);
//   - otherwise a radix sort of the keys (with their positions), 8 bits a digit, stable by
//     construction (kernels/src/radix_sort.hpp): split by the most significant digit that tells
//     keys apart, recursively while a bucket is larger than `radix_leaf` entries, each bucket then
//     finished by least-significant-digit passes in cache; a digit every key of a range shares
//     costs no pass (bool, small integers, the high bytes of a narrow range). The counting of
//     the digits, the first split, its buckets and the writing of the results are split over
//     `parallel_for`: a single long row uses the pool too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <tensorjit/kernels/parallel_for.hpp>

namespace tensorjit::kernels {

enum class SortElement : std::uint8_t { f32, f64, i32, i64, boolean };  // boolean: one byte, 0 or 1

struct SortRowArgs {
  SortElement element = SortElement::f32;
  bool descending = false;
  std::int64_t length = 0;        // elements in the row
  std::int64_t count = 0;         // positions of the order written, 0 <= count <= length
  const void* input = nullptr;    // element 0 of the row
  std::int64_t input_stride = 1;  // in elements, any sign
  void* values = nullptr;         // may be null: no values written
  std::int64_t values_stride = 1;
  std::int64_t* positions = nullptr;  // may be null: no positions written
  std::int64_t positions_stride = 1;
  // The caller's pool for a long row (parallel_for.hpp); unset: this thread only. The result does
  // not depend on it.
  ParallelFor parallel_for{};
  // Buckets of at most this many entries are finished in cache; 0: a quarter of this CPU's L2 (tests
  // set small values to cross every level of the split cheaply). The result does not depend on it.
  std::int64_t radix_leaf = 0;
};

// Scratch memory a thread reuses from row to row (grows to the largest row it sorted).
class SortWorkspace {
 public:
  // Where the scratch comes from: `allocate(bytes)` returns at least `bytes` of 64-byte aligned
  // memory, given back when the last copy of the pointer goes. A long row's scratch is twice its
  // entries (8 to 32 bytes an element): the runtime hands out its recycled mappings, so that a
  // sort in a loop does not fault that memory in again on every call.
  using Allocate = std::function<std::shared_ptr<void>(std::size_t bytes)>;
  SortWorkspace();  // std::aligned_alloc
  explicit SortWorkspace(Allocate allocate);
  ~SortWorkspace();
  SortWorkspace(const SortWorkspace&) = delete;
  SortWorkspace& operator=(const SortWorkspace&) = delete;
  // `bytes` of 64-byte aligned scratch, at `slot` 0, 1 or 2 (each slot keeps its own memory).
  void* scratch(int slot, std::size_t bytes);

 private:
  struct Block {
    std::shared_ptr<void> data;
    std::size_t bytes = 0;
  };
  Allocate allocate_;
  Block blocks_[3];
};

// Sorts one row. Throws std::invalid_argument for arguments outside the contract above.
void sort_row(const SortRowArgs& args, SortWorkspace& workspace);

}  // namespace tensorjit::kernels
