// Copies a strided 2-D block into a row-major scratch tile: how a loop step stages the blocks of
// an input it reads transposed (runtime/src/loop_step.cpp, "Tiles").
#pragma once

#include <cstdint>

namespace tensorjit::detail {

// Copies the rows x columns block whose element (r, c) is at source + (r * row_stride + c *
// column_stride) * itemsize into target, row-major with rows tile_columns elements apart. The
// source is walked down each column of the block (along the transposed operand's rows), and the
// same columns tile_columns further on, the next block's, are prefetched meanwhile. Elements of
// 1, 2, 4 or 8 bytes, copied as bits; 4-byte blocks with row_stride 1 move in 4 x 4 pieces.
void copy_block(const void* source, std::int64_t itemsize, std::int64_t row_stride, std::int64_t column_stride,
                std::int64_t rows, std::int64_t columns, void* target, std::int64_t tile_columns);

}  // namespace tensorjit::detail
