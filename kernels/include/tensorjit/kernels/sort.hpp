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
// integers: the sign bit flipped; descending: every bit inverted), carrying a payload (its
// position, or its own bits when only values are asked for). Then
//   - a short row (under kSmallRow elements): std::sort of (key, position) pairs, which are all
//     distinct, so any sort is stable;
//   - a few positions of a long row (topk: count * kSelectRatio <= length): one pass keeps the
//     best `count` (key, position) pairs in a sorted array; a block of elements that cannot enter
//     (no key below the current worst) is skipped after one vector compare (AVX-512 where the CPU
//     has it, else the portable loop: the same elements enter either way, so the same result);
//   - otherwise a least-significant-digit radix sort of the keys with their payloads, 8 bits a
//     pass, which is stable by construction; a pass whose digit is the same for every key is
//     skipped (bool, small integers, the high bytes of a narrow range).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

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
};

// Scratch memory a thread reuses from row to row (grows to the largest row it sorted).
class SortWorkspace {
 public:
  SortWorkspace();
  ~SortWorkspace();
  SortWorkspace(const SortWorkspace&) = delete;
  SortWorkspace& operator=(const SortWorkspace&) = delete;
  // `bytes` of 64-byte aligned scratch, at `slot` 0, 1 or 2 (each slot keeps its own memory).
  void* scratch(int slot, std::size_t bytes);

 private:
  struct Block;
  std::unique_ptr<Block> blocks_[3];
};

// Sorts one row. Throws std::invalid_argument for arguments outside the contract above.
void sort_row(const SortRowArgs& args, SortWorkspace& workspace);

}  // namespace tensorjit::kernels
