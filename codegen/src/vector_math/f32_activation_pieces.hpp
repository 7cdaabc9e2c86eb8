// The table path shared by the f32 activations with the sign of x (gelu_tanh, gelu): polynomial
// pieces over the range where activations mostly lie; x itself from the table's end on when the
// function is x there to f32 precision, else the function's own path there too; below the table,
// and for NaN, the function's own path, emitted in a block of its own per register and entered
// only when a lane of that register needs it (with_slow_lanes). Internal to the vector math.
//
// Piece n (n = first ... first + count - 1) covers x = n w +- w/2, w a power of two. n = round(x/w)
// comes with its low bits from one FMA with a shifter (the table index is n - first), and t = x -
// n w is exact (t = x for n = 0, else x and n w lie within a factor 2: Sterbenz). Each piece is
// c0 + c1 t + t^2 q(t): c0 = f(n w) as an f32 pair (an f32 c0 alone, rounded, cost gelu_tanh up to
// 1.5 ulp) and c0 + c1 t added exactly, so the result rounds once after the low parts and t^2 q(t)
// have joined; the piece at 0 has c0 = -0 and c1 = 1/2 exactly, so t/2 enters the sum exact and the
// roundings of t^2 q(t) are damped. The sign of x is copied onto the result (the FMAs give +0 for
// -0).
// Coefficients and each piece's fit error: scripts/vector_math_f32_fit.py (activation_pieces).
//
// The lookups: where the tables sit in registers (AVX-512 at 256 and 512 bits) one vpermi2ps per
// column and 32 entries; on AVX2 hosts at 256 bits a table of 16 takes two vpermps and a blend per
// column (MathBuilder::lookup); elsewhere each lane loads its piece's row of all the columns and
// the rows are shuffled into columns (MathBuilder::lookup_rows), which LLVM lowered to some 120
// instructions per register for 8 columns of 32 at 256 bits (an earlier gelu table, Zen 3).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "codegen/src/vector_math/math_builder.hpp"

namespace tensorjit::codegen::vector_math::f32 {

struct ActivationPieces {
  // `pieces`: one row per piece, c0 hi, c0 lo, c1, ..., c_degree; 16 or 32 pieces.
  template <std::size_t Count, std::size_t Columns>
  ActivationPieces(const char* name, int first, double width, const float (&pieces)[Count][Columns], bool x_above)
      : name(name), first(first), width(width), x_above(x_above), columns(Columns, std::vector<double>(Count)) {
    static_assert((Count == 16 || Count == 32) && Columns >= 4);
    for (std::size_t i = 0; i < Count; ++i)
      for (std::size_t j = 0; j < Columns; ++j) columns[j][i] = pieces[i][j];
  }

  const char* name;  // names the slow path's blocks
  int first;         // n of the first piece
  double width;      // w, a power of two
  bool x_above;      // f(x) rounds to x from the table's end on
  std::vector<std::vector<double>> columns;  // c0 hi, c0 lo, c1, ..., each over the pieces
};

// f(x) by `table` within it, x at or above its end (with x_above), and elsewhere, NaN included,
// outside(m', x) (m' a builder of one register's lanes).
llvm::Value* activation_from_pieces(MathBuilder& m, llvm::Value* x, const ActivationPieces& table,
                                    const std::function<llvm::Value*(MathBuilder&, llvm::Value*)>& outside);

}  // namespace tensorjit::codegen::vector_math::f32
