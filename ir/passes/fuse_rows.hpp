// fuse_rows: reduce-then-broadcast over the innermost axes becomes one row step that keeps each row
// in cache across its phases (DESIGN.md contract 6, third rule): softmax, log_softmax, layernorm,
// rmsnorm, as the library builds them or as a user writes them with primitives.
//
// Pre:  a Plan from fuse_reductions.
// Post: each maximal run of consecutive steps such that
//   - the first is a `reduce` step reducing the trailing axes [r, rank) of its input's shape D
//     (the rows: one per index of the leading axes);
//   - every later one is a `reduce` step over the same D and axes or a `loop` step over D, and
//     reads something an earlier one of the run wrote;
//   - a value of the run over D is read by a later part directly (element i by element i), and a
//     per-row value (a reduction's result or its consumers') only through views that give row k
//     its own value at every element of row k (an expand back over the row axes);
// and that holds at least one loop over D, is one `row` step whose `parts` are those steps, in
// order. The runtime runs all parts on a chunk of rows before the next chunk. Its outputs are the
// parts' outputs that someone outside the run reads (or graph outputs), plus every per-row value
// (small); values over D read only inside the run live in a per-chunk scratch buffer.
#pragma once

#include "ir/passes/fuse.hpp"

namespace tensorjit::ir {

Plan fuse_rows(const Plan& plan);

}  // namespace tensorjit::ir
