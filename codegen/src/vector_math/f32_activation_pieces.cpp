#include "codegen/src/vector_math/f32_activation_pieces.hpp"

#include <vector>

#include "codegen/src/vector_math/functions.hpp"

namespace tensorjit::codegen::vector_math::f32 {

llvm::Value* activation_from_pieces(MathBuilder& m, llvm::Value* x, const ActivationPieces& table,
                                    const std::function<llvm::Value*(MathBuilder&, llvm::Value*)>& outside) {
  auto& b = m.ir();
  const std::size_t count = table.columns.front().size();
  const std::size_t degree = table.columns.size() - 2;
  const double start = (table.first - 0.5) * table.width;
  const double end = start + static_cast<double>(count) * table.width;
  // x/w + 1.5 2^23 - first rounded to an integer: n - first in the low bits (inputs outside the
  // table give garbage, replaced below).
  llvm::Value* shifter = m.real(0x1.8p23 - table.first);
  llvm::Value* shifted = m.fma(x, m.real(1.0 / table.width), shifter);
  llvm::Value* n = m.sub(shifted, shifter);
  llvm::Value* t = m.fma(n, m.real(-table.width), x);
  llvm::Value* index = m.to_bits(shifted);
  const std::vector<llvm::ArrayRef<double>> column_tables(table.columns.begin(), table.columns.end());
  std::vector<llvm::Value*> rows;
  if (!m.lookups_from_registers() && !(count <= 16 && m.lookups_by_permutes()))
    rows = m.lookup_rows(column_tables, index);
  auto entry = [&](std::size_t j) { return rows.empty() ? m.lookup(column_tables[j], index) : rows[j]; };
  auto coefficient = [&](std::size_t i) { return entry(1 + i); };  // c_i, i >= 1
  llvm::Value* q = coefficient(degree);  // c2 + c3 t + ... + c_degree t^(degree - 2)
  for (std::size_t i = degree - 1; i >= 2; --i) q = m.fma(q, t, coefficient(i));
  // c0 + c1 t, whose terms may nearly cancel at a piece's end in a steep tail (gelu's c1 t is as
  // large as c0 at x = -4.25), added exactly: c1 t as an FMA product pair, then TwoSum.
  DoubleDouble linear = m.two_product(coefficient(1), t);
  DoubleDouble head = m.two_sum(entry(0), linear.hi);
  llvm::Value* low = m.add(head.lo, m.fma(q, m.mul(t, t), m.add(entry(1), linear.lo)));
  llvm::Value* result = m.copysign(m.add(head.hi, low), x);
  llvm::Value* beyond = b.CreateFCmpULT(x, m.real(start));  // NaN too
  if (table.x_above) result = m.select(m.greater_equal(x, m.real(end)), x, result);
  else beyond = b.CreateOr(beyond, m.greater_equal(x, m.real(end)));
  // Outside the table, and NaN: the function's own path, per register (at 512 bits one input in a
  // hundred below gelu_tanh's table sends 15% of the registers there, but 47% of the loop's groups
  // of four), behind one test of the whole value when it spans several registers (a group of table
  // lanes then pays one branch).
  auto per_register = [&] {
    return m.per_register({x, result, beyond}, [&](llvm::ArrayRef<llvm::Value*> operands, unsigned lanes) {
      MathBuilder register_math(b, m.module(), lanes, Evaluation::f32);
      return vector_math::with_slow_lanes(register_math, operands[2], operands[1], table.name, ".outside",
                                          [&] { return outside(register_math, operands[0]); });
    });
  };
  if (!m.spans_registers()) return per_register();
  return vector_math::with_slow_lanes(m, beyond, result, table.name, ".group", per_register);
}

}  // namespace tensorjit::codegen::vector_math::f32
