#include "runtime/src/block_copy.hpp"

#include <cstdint>

#include <emmintrin.h>
#include <xmmintrin.h>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::detail {
namespace {

// A hint only: the address may lie past the operand (the last block's next), which a prefetch
// never faults on; formed as an integer, not by pointer arithmetic out of the buffer.
void prefetch(const void* base, std::int64_t offset_bytes) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(base) + offset_bytes));
}

// Copies the rows x columns block whose element (r, c) is source[r * row_stride + c * column_stride]
// into target (see block_copy.hpp).
template <typename Bits>
void copy_block(const Bits* source, std::int64_t row_stride, std::int64_t column_stride, std::int64_t rows,
                std::int64_t columns, Bits* target, std::int64_t tile_columns) {
  constexpr auto itemsize = static_cast<std::int64_t>(sizeof(Bits));
  const std::int64_t ahead_bytes = tile_columns * column_stride * itemsize;  // the next block's column
  const std::int64_t run_bytes = rows * itemsize;
  for (std::int64_t c = 0; c < columns; ++c) {
    const Bits* from = source + c * column_stride;
    Bits* to = target + c;
    for (std::int64_t b = 0; b < run_bytes; b += 64) prefetch(from, ahead_bytes + b);
    for (std::int64_t r = 0; r < rows; ++r) to[r * tile_columns] = from[r * row_stride];
  }
}

// The same for 4-byte elements whose block columns are contiguous (row_stride 1, as in b.T of a
// row-major b): 4 x 4 pieces transposed in SSE registers (every x86-64 CPU has SSE2), four
// 16-byte loads and stores where the scalar loop makes sixteen of each.
void copy_block_4x4(const std::uint32_t* source, std::int64_t column_stride, std::int64_t rows, std::int64_t columns,
                    std::uint32_t* target, std::int64_t tile_columns) {
  const std::int64_t ahead = tile_columns * column_stride;
  const std::int64_t whole_columns = columns / 4 * 4, whole_rows = rows / 4 * 4;
  for (std::int64_t c = 0; c < whole_columns; c += 4) {
    const std::uint32_t* from = source + c * column_stride;
    for (int i = 0; i < 4; ++i)
      for (std::int64_t b = 0; b < rows * 4; b += 64)
        prefetch(from, ((i * column_stride + ahead) * 4) + b);
    for (std::int64_t r = 0; r < whole_rows; r += 4) {
      __m128 row0 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + r)));
      __m128 row1 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + column_stride + r)));
      __m128 row2 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 2 * column_stride + r)));
      __m128 row3 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 3 * column_stride + r)));
      _MM_TRANSPOSE4_PS(row0, row1, row2, row3);
      std::uint32_t* to = target + r * tile_columns + c;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm_castps_si128(row0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + tile_columns), _mm_castps_si128(row1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * tile_columns), _mm_castps_si128(row2));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 3 * tile_columns), _mm_castps_si128(row3));
    }
    for (std::int64_t r = whole_rows; r < rows; ++r)
      for (int i = 0; i < 4; ++i) target[r * tile_columns + c + i] = from[i * column_stride + r];
  }
  copy_block(source + whole_columns * column_stride, 1, column_stride, rows, columns - whole_columns,
             target + whole_columns, tile_columns);
}

}  // namespace

void copy_block(const void* source, std::int64_t itemsize, std::int64_t row_stride, std::int64_t column_stride,
                std::int64_t rows, std::int64_t columns, void* target, std::int64_t tile_columns) {
  auto copy = [&](auto bits) {
    using Bits = decltype(bits);
    copy_block(static_cast<const Bits*>(source), row_stride, column_stride, rows, columns, static_cast<Bits*>(target),
               tile_columns);
  };
  switch (itemsize) {
    case 1: return copy(std::uint8_t{});
    case 2: return copy(std::uint16_t{});
    case 4:
      if (row_stride == 1)
        return copy_block_4x4(static_cast<const std::uint32_t*>(source), column_stride, rows, columns,
                              static_cast<std::uint32_t*>(target), tile_columns);
      return copy(std::uint32_t{});
    case 8: return copy(std::uint64_t{});
  }
  TJ_INTERNAL_CHECK(false) << "loop step: no block copy for " << itemsize << "-byte elements";
}

}  // namespace tensorjit::detail
