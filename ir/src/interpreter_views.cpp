// Movement ops: the input's buffer under the layout apply_view (view.hpp) gives, never a copy,
// except for a reshape that strides cannot express, which copies its input to a contiguous value
// first (numpy's rule).
#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/view.hpp>

#include "interpreter_eval.hpp"

namespace tensorjit::ir {

Value evaluate_view(const Node& node, const Value& input) {
  if (std::optional<Layout> layout = apply_view(input.layout, node)) {
    return Value{input.buffer, input.dtype, *std::move(layout)};
  }
  TJ_INTERNAL_CHECK(node.op() == Op::reshape)
      << "interpreter: apply_view failed for " << op_name(node.op()) << " of "
      << shape_str(input.layout.shape) << ", which only a reshape may do";
  Value contiguous = copy_to_contiguous(input);
  std::optional<Layout> layout = apply_view(contiguous.layout, node);
  TJ_INTERNAL_CHECK(layout.has_value())
      << "interpreter: reshape of contiguous " << shape_str(input.layout.shape) << " to "
      << shape_str(node.shape()) << " has no layout";
  contiguous.layout = *std::move(layout);
  return contiguous;
}

}  // namespace tensorjit::ir
