// What gather and scatter_add share wherever they run (the interpreter, the loop kernels' runtime,
// the scatter step): how an index maps to an element, and the error an index outside its axis
// raises (docs/indexing.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

// The element an index reads along an axis of `extent` elements (numpy: i < 0 counts from the end),
// or -1 when the index lies outside [-extent, extent).
inline std::int64_t resolve_index(std::int64_t index, std::int64_t extent) {
  const std::int64_t element = index < 0 ? index + extent : index;
  return element >= 0 && element < extent ? element : -1;
}

// The public function's name (the text IR's `origin=`), and back.
std::string_view index_origin_name(IndexOrigin origin);
std::optional<IndexOrigin> index_origin_from_name(std::string_view name);

// Throws tensorjit::Error for `index`, read at flat row-major `position` of the node's indices
// (operand 1) by a gather or scatter_add node: it names the public function that built the node
// (IndexAttr::origin), the index, its position in the indices that function was passed, and the
// valid range.
[[noreturn]] void throw_index_out_of_range(const Node& node, std::int64_t index, std::int64_t position);

}  // namespace tensorjit::ir
