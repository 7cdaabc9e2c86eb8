// fuse_scans: gives each scan (cumsum) its elementwise producers and consumers, as fuse_reductions
// does for reductions (docs/contracts.md, contract 6, rule 6; absorb_neighbours.hpp):
// `cumsum(exp(x)) * y` reads x and y once and writes one value.
//
// Pre:  a Plan from fuse_reductions (scans are `single` steps).
// Post: every scan's single step is a `scan` step whose nodes are, in topological order, its
//       producer ops, the scan, its consumer ops; the loop steps merged disappear. A producer's
//       and a consumer's domain is the scan's shape (elementwise ops take one shape, and the
//       consumer reads the scan directly), so the kernel walks one domain. The steps stay in an
//       order that respects every dependency.
#pragma once

#include <tensorjit/ir/plan.hpp>

namespace tensorjit::ir {

Plan fuse_scans(const Plan& plan);

}  // namespace tensorjit::ir
