// Views are index arithmetic, never copies: the one place that turns a movement op into a layout
// (docs/contracts.md, contract 2).
#pragma once

#include <optional>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

// The layout of `view` (a reshape, permute, expand or slice node) over an input laid out as
// `input`. Always succeeds for permute, expand and slice; a reshape succeeds when the input's
// strides allow it without a copy (numpy's rule), and gives nothing otherwise.
std::optional<Layout> apply_view(const Layout& input, const Node& view);

}  // namespace tensorjit::ir
