// The ops the oracle draws, one row each: how to draw a statement's attributes and how to build it
// with tensorjit's public API. The same names are the rows of tests/oracle/peer_ops.py, which says
// how NumPy and PyTorch compute each and within which bound; a new op joins with one row here and
// one there (check.py fails on a name it has no row for).
#pragma once

#include <tensorjit/tensorjit.hpp>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "program.hpp"

namespace oracle {

namespace tj = tensorjit;
using Operands = std::vector<tj::Tensor>;
using Attrs = std::map<std::string, std::string>;
using Rng = std::mt19937_64;

// How the generator picks operands after the first: any value, or preferably one that broadcasts
// against the first (same shape or a suffix of it), a matmul's right operand, one of the first's
// shape (stack), or one of its rank whose extents differ from the first's along one axis at most
// (concat).
enum class Pick { any, broadcast, matmul, same, join };

// An operand that no earlier value could be: a new input statement of this dtype and shape,
// drawn after the op's attributes. `index_bound` n > 0 makes it indices, uniform in [-n, n)
// (values=index, inputs.hpp); 0 makes it values of any layout and distribution.
struct Fresh {
  tj::DType dtype;
  tj::Shape shape;
  std::int64_t index_bound = 0;
};

// A call with invalid arguments (a bad axis, a shape mismatch, a negative width) made from a
// statement's operands: it must throw tensorjit::Error whose message names the user's
// `function` ("pad: ..."), which the driver checks for every statement of the op.
struct Misuse {
  std::string function;
  std::string what;
  std::function<tj::Tensor()> call;
};

struct OracleOp {
  const char* name;
  int arity;  // operands drawn from earlier values; 0 for creation ops
  Pick pick;
  // Attributes for these operands. May throw tj::Error (or return nothing useful): the
  // generator then draws another op.
  Attrs (*draw)(Rng& rng, const Operands& operands);
  // The statement's operands are the `arity` drawn ones, then one new input for each of these
  // (the indexing ops' indices and values). May throw tj::Error as `draw` may.
  tj::Tensor (*build)(const Operands& operands, const Statement& statement);
  std::vector<Fresh> (*fresh)(Rng& rng, const Operands& operands, const Attrs& attrs) = nullptr;
  int fresh_count = 0;  // how many `fresh` makes, for the driver's operand count
  std::vector<Misuse> (*misuse)(const Operands& operands, const Statement& statement) = nullptr;
};

const std::vector<OracleOp>& oracle_ops();
// The rows whose gradients the oracle checks against torch.autograd (generate_grad_program): ops
// differentiable wherever random unit-scale operands put them, so no division, pow, sqrt or log
// (poles and domains) and no comparisons. peer_ops.py gives these rows a `torch` function.
const std::vector<std::string>& differentiable_ops();
const OracleOp& find_op(const std::string& name);  // throws std::runtime_error for an unknown name

tj::DType parse_dtype(const std::string& name);
std::string dtype_text(tj::DType dtype);

}  // namespace oracle
