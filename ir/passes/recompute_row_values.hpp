// recompute_row_values: inside a row step (fuse_rows.hpp), a cheap value over the rows that a
// loop part computes only for later parts is computed again by each of its readers instead of
// being written to a row buffer and read back.
//
// layernorm as written, x - mean then (x - mean)^2 reduced then (x - mean) * rstd * gamma + beta,
// otherwise has a loop phase that writes x - mean and its square (two stores per element) between
// the two reductions: recomputed, the square's reduction reads x and the last phase reads x, so
// a row takes three passes and one store per element, as a hand-written loop does.
//
// Pre:  the output of fuse_rows.
// Post: in each row step, whose domain is its first reduction's input shape: for each output O
//   of a loop part that only later parts of the step read (not a step output), and whose nodes in
//   that part (those O is computed from) are add, sub, mul, neg, abs or square, or any op of
//   per-row values and uniform values (ir::is_uniform: constants, scalar arguments) alone (run
//   once per row: the mean), and read at most two values over the whole domain (x, dy; a per-row
//   or a uniform value does not count): O's nodes are placed, in order, at the front of every later part
//   that reads O (before its reduction in a reduce part), and O is no longer an output of its
//   part; the part keeps the nodes its other outputs need, and is dropped when it has none.
//   Every element gets the same ops on the same operands, so the bits do not change. Expensive
//   values (softmax's exp(x - max)) and values built from three rows or more stay materialised:
//   recomputing them would cost more than the store and the load they save. Two rows are read
//   again rather than a scratch row kept: the rows are in L1 for the step anyway, a scratch row
//   takes L1 of its own (the layernorm backward pass's dy * x-hat, recompute_row_values.cpp).
#pragma once

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::ir {

Plan recompute_row_values(const Plan& plan);

}  // namespace tensorjit::ir
