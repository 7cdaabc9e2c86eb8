#include "generate.hpp"

#include <algorithm>

#include "inputs.hpp"
#include "oracle_ops.hpp"

namespace oracle {
namespace {

constexpr std::int64_t kMaxInputElements = std::int64_t{1} << 15;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 17;
constexpr int kAttemptsPerStatement = 60;

std::size_t below(Rng& rng, std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }

// Three extents for the whole program; 0 is rare, and some are above a reduction block (4096).
std::vector<std::int64_t> draw_extents(Rng& rng) {
  const std::int64_t pool[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 33, 64, 65, 129, 257, 1000, 4100};
  std::vector<std::int64_t> extents;
  while (extents.size() < 3) {
    const std::int64_t e = pool[below(rng, std::size(pool))];
    if (e == 0 && std::bernoulli_distribution(0.8)(rng)) continue;
    extents.push_back(e);
  }
  return extents;
}

tj::Shape draw_shape(Rng& rng, const std::vector<std::int64_t>& extents) {
  const std::size_t ranks[] = {0, 1, 1, 2, 2, 2, 3, 3, 4};
  tj::Shape shape(ranks[below(rng, std::size(ranks))]);
  for (std::int64_t& e : shape) e = std::bernoulli_distribution(0.15)(rng) ? 1 : extents[below(rng, extents.size())];
  auto count = [&] {
    std::int64_t n = 1;
    for (std::int64_t e : shape) n *= e;
    return n;
  };
  while (count() > kMaxInputElements) *std::max_element(shape.begin(), shape.end()) /= 4;
  return shape;
}

// What a kind of program draws: its inputs' dtypes and values, and the ops of its statements.
struct Kind {
  std::vector<tj::DType> dtypes;  // drawn uniformly (repeats weigh)
  const char* values;             // every input's value distribution, or nullptr for any
  std::vector<const OracleOp*> ops;
};

const Kind& any_program() {
  static const Kind kind = [] {
    Kind k{{tj::f32, tj::f32, tj::f32, tj::f64, tj::f64, tj::i32, tj::i64, tj::boolean, tj::f16, tj::bf16}, nullptr, {}};
    for (const OracleOp& op : oracle_ops()) k.ops.push_back(&op);
    return k;
  }();
  return kind;
}

// Differentiable programs: f32 and f64 inputs of unit scale (no overflow, no ties but by
// structure), the ops of differentiable_ops().
const Kind& grad_program() {
  static const Kind kind = [] {
    Kind k{{tj::f32, tj::f64, tj::f64}, "unit", {}};
    for (const std::string& name : differentiable_ops()) k.ops.push_back(&find_op(name));
    return k;
  }();
  return kind;
}

// An operand after the first, as the op's row prefers.
std::size_t pick_operand(Rng& rng, Pick pick, const std::vector<tj::Tensor>& values, const tj::Tensor& first) {
  std::vector<std::size_t> fitting;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const tj::Shape& s = values[i].shape();
    const tj::Shape& f = first.shape();
    bool fits = false;
    if (pick == Pick::matmul) {
      fits = f.size() >= 1 && s.size() >= 1 && s[s.size() >= 2 ? s.size() - 2 : 0] == f.back();
    } else if (pick == Pick::same) {
      fits = s == f;
    } else if (pick == Pick::join) {  // one rank, at most one extent differing
      fits = s.size() == f.size() && !f.empty();
      for (std::size_t d = 0, differ = 0; fits && d < f.size(); ++d) fits = (differ += s[d] != f[d]) <= 1;
    } else {
      fits = s.size() <= f.size() && std::equal(s.rbegin(), s.rend(), f.rbegin());
    }
    if (fits) fitting.push_back(i);
  }
  if (pick != Pick::any && !fitting.empty() && std::bernoulli_distribution(0.8)(rng)) return fitting[below(rng, fitting.size())];
  return below(rng, values.size());
}

Program generate(std::uint64_t seed, const Kind& kind, tj::Tensor* last) {
  Rng rng(seed);
  Program program;
  std::vector<tj::Tensor> values;
  const std::vector<std::int64_t> extents = draw_extents(rng);
  const std::size_t input_count = 1 + below(rng, 4);
  for (std::size_t i = 0; i < input_count; ++i) {
    Statement s{"x" + std::to_string(i), "input", {},
                draw_input_attrs(rng, kind.dtypes[below(rng, kind.dtypes.size())], draw_shape(rng, extents))};
    if (kind.values) s.attrs["values"] = kind.values;
    values.push_back(make_input(s));
    program.statements.push_back(std::move(s));
  }
  const std::size_t statement_count = 3 + below(rng, 10);
  for (std::size_t i = 0; i < statement_count; ++i) {
    for (int attempt = 0; attempt < kAttemptsPerStatement; ++attempt) {
      const OracleOp& op = *kind.ops[below(rng, kind.ops.size())];
      Statement s{"s" + std::to_string(program.statements.size()), op.name, {}, {}};
      Operands operands;
      std::vector<std::size_t> chosen;
      if (op.arity > 0) chosen.push_back(std::bernoulli_distribution(0.5)(rng) ? values.size() - 1 : below(rng, values.size()));
      for (int k = 1; k < op.arity; ++k) chosen.push_back(pick_operand(rng, op.pick, values, values[chosen[0]]));
      for (std::size_t c : chosen) {
        operands.push_back(values[c]);
        s.operands.push_back(program.statements[c].name);
      }
      try {
        s.attrs = op.draw(rng, operands);
        std::vector<Statement> fresh_inputs;
        if (op.fresh) {
          for (const Fresh& f : op.fresh(rng, operands, s.attrs)) {
            Statement input{"x" + std::to_string(program.statements.size() + fresh_inputs.size()), "input", {},
                            draw_input_attrs(rng, f.dtype, f.shape)};
            if (f.index_bound > 0) {
              input.attrs["values"] = "index";
              input.attrs["bound"] = std::to_string(f.index_bound);
            } else if (kind.values) {
              input.attrs["values"] = kind.values;
            }
            operands.push_back(make_input(input));
            s.operands.push_back(input.name);
            fresh_inputs.push_back(std::move(input));
          }
        }
        tj::Tensor result = op.build(operands, s);
        if (result.size() > kMaxElements) continue;
        for (std::size_t k = 0; k < fresh_inputs.size(); ++k) {
          values.push_back(operands[static_cast<std::size_t>(op.arity) + k]);
          program.statements.push_back(std::move(fresh_inputs[k]));
        }
        s.name = "s" + std::to_string(program.statements.size());
        values.push_back(result);
        program.statements.push_back(std::move(s));
        break;
      } catch (const tj::Error&) {
        continue;  // not an operand this op takes: draw again
      }
    }
  }
  // The last value and some others are evaluated together, as outputs of one eval.
  for (std::size_t i = input_count; i < program.statements.size(); ++i)
    if (program.statements[i].op != "input" && (i + 1 == program.statements.size() || std::bernoulli_distribution(0.3)(rng)))
      program.outputs.push_back(program.statements[i].name);
  if (program.outputs.empty()) program.outputs.push_back(program.statements.back().name);
  *last = values.back();
  return program;
}

}  // namespace

Program generate_program(std::uint64_t seed) {
  tj::Tensor last;
  return generate(seed, any_program(), &last);
}

Program generate_grad_program(std::uint64_t seed) {
  tj::Tensor last;
  Program program = generate(seed, grad_program(), &last);
  // One output, the last statement (made floating by a last statement when it is not: an
  // integer result has no gradient), and its adjoint: an f64 input `dy` of its shape (tj::grad
  // casts it to the output's dtype).
  if (!tj::is_floating(last.dtype())) {
    const std::string operand = program.statements.back().name;
    program.statements.push_back(Statement{"s" + std::to_string(program.statements.size()), "add_scalar", {operand},
                                           {{"scalar", "f"}, {"value", "0.5"}}});
  }
  program.outputs = {program.statements.back().name};
  program.statements.push_back(Statement{"dy", "input", {}, {{"dtype", "f64"}, {"shape", list_text(last.shape())},
                                                              {"layout", "contiguous"}, {"values", "unit"},
                                                              {"seed", std::to_string(seed % 1000003)}}});
  return program;
}

}  // namespace oracle
