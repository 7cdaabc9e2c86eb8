// A random program of the oracle: named statements over tensorjit's public API, one a line, as
// text that the driver runs and tests/oracle/check.py replays with NumPy and PyTorch.
//
//   x0 = input f32 shape=3,5 layout=transposed values=normal seed=17
//   s1 = exp x0
//   s2 = sum s1 axes=1 keepdims=0
//   out s2
//
// An `input` line says how its values are drawn (from `seed`) and how they are laid out in memory
// (contiguous, a from_blob with transposed, negative or gapped strides, a sliced or broadcast
// view); every other line names an op of the table in oracle_ops.hpp, its operands and its
// attributes. `out` lines name the values evaluated together, as a user would (fused); the driver
// also evaluates every statement on its own, so the checker can test each op against the peers on
// tensorjit's own operands, and the fused outputs against the statement values bit for bit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace oracle {

struct Statement {
  std::string name;
  std::string op;  // "input" or a row of oracle_ops
  std::vector<std::string> operands;
  std::map<std::string, std::string> attrs;

  const std::string& attr(const std::string& key) const;  // throws when absent
  bool has(const std::string& key) const { return attrs.count(key) != 0; }
};

struct Program {
  std::vector<Statement> statements;
  std::vector<std::string> outputs;
};

std::string to_text(const Program& program);
Program parse_program(const std::string& text);  // throws std::runtime_error naming the line

// "0,2" -> {0, 2}; "" -> {}.
std::vector<std::int64_t> parse_list(const std::string& text);
std::string list_text(const std::vector<std::int64_t>& values);

}  // namespace oracle
