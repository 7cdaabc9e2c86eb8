// fuse_rows: reduce-then-broadcast over the innermost axes becomes one row step that keeps each row
// in cache across its phases (docs/contracts.md, contract 6, rule 3): softmax, log_softmax, layernorm,
// rmsnorm, as the library builds them or as a user writes them with primitives.
//
// Pre:  a Plan from fuse_reductions.
// Post: each maximal run of two or more steps such that
//   - the first is a `reduce` step reducing the trailing axes [r, rank) of its input's shape D
//     (the rows: one per index of the leading axes), or a `loop` step that gathers
//     (computes_gather, its prologue) whose first reader is such a reduce step over its own
//     domain D with r > 0 (the embedding block: the gathered rows summed, then layernorm);
//   - every later one is a `reduce` step over the same D and axes, a `loop` step over D that
//     does not gather, or a `reduce` step that sums D over the row axes [0, r) in f32 or f64 with
//     no consumer (a part that reduces over the rows, ir::reduces_rows: a backward pass's dgamma
//     and dbeta), and
//     reads something an earlier one of the run wrote, or reads nothing of the run and is read by
//     a later one, or, a sum over the rows, reads a value another part reads (a loop step, or a
//     sum over the rows, that reads only the plan's sources is first moved to just before its
//     first reader: it depends on no step);
//   - a value of the run over D is read by a later part directly (element i by element i), and a
//     per-row value (a reduction's result or its consumers') only through views that give row k
//     its own value at every element of row k (an expand back over the row axes);
//   - the steps between two of the run that do not join it either read nothing the run writes,
//     and move, in order, to before the row step, or read what the run (or such a step) writes,
//     and move, in order, to after it (a product of the row step's output);
// is one `row` step whose `parts` are those steps, in order. The runtime runs all parts on a row
// (a chunk of rows) before the next. Its outputs are the parts' outputs that someone outside the
// run reads (or graph outputs), plus every per-row value (small); values over D read only inside
// the run live in scratch.
#pragma once

#include "ir/passes/fuse.hpp"

namespace tensorjit::ir {

Plan fuse_rows(const Plan& plan);

}  // namespace tensorjit::ir
