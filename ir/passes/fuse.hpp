// fuse: partitions a graph into the steps that run it (docs/contracts.md, contract 6, rules 1 and 5).
//
// Pre:  the output of fold_views (no view between two elementwise ops).
// Post: a Plan whose steps, run in order, compute every output:
//   - a `loop` step is a connected group of elementwise ops of one shape, computed in one pass
//     over its domain; it reads inputs, constants and materialised values (through their views)
//     and writes only the values someone outside the group needs;
//   - a `single` step is one node that is materialised by itself: a reduction, a cumsum, a matmul,
//     an iota that is a graph output or read by a step that reads memory (a matmul, a sort or an
//     argsort; every other iota is a leaf, like an input, that the kernels reading it compute
//     from the element's offset). fuse_reductions.hpp and fuse_scans.hpp then turn reductions and
//     scans into `reduce` and `scan` steps with their elementwise producers and consumers;
//     fuse_epilogues.hpp gives a matmul its consumers;
//   - a `sort` step is a sort and/or an argsort of one operand with equal attributes (a topk's
//     values and indices): one sort of each row gives both;
//   - a `concat` step computes a concat (and the concats read only by it, nested in it): its
//     parts are the loop steps whose every output is one of its operands, read by nothing else;
//     they write those outputs in place into the concat's buffer, and the runtime copies the other
//     operands there (docs/architecture.md, "Joining").
// A cast of an f16/bf16 value to f32 that only matmuls read (their f32 form, f32_form.hpp) is in no
// step: the GEMM converts the value as it packs it (f32_form.hpp's widens_storage_float), so the
// value itself is the one materialised, in 16 bits, when a step computes it.
// A value is materialised only at a graph output, at a single step's operand, or where another
// group reads it; each such decision is recorded with its reason. Groups are cut where a path
// between two elementwise ops leaves the group through a single step (that would be a cycle), and
// a group holds at most kMaxGroupNodes ops so that no graph makes one compile take long.
#pragma once

#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/plan.hpp>

namespace tensorjit::ir {

inline constexpr std::size_t kMaxGroupNodes = 192;

Plan fuse(const Graph& folded);

}  // namespace tensorjit::ir
