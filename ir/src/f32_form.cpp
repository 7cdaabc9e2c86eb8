#include <tensorjit/ir/f32_form.hpp>

#include <vector>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::ir {

bool has_f32_form(const Node& node) {
  const OpCategory kind = category(node.op());
  if (kind != OpCategory::reduce && kind != OpCategory::scan && kind != OpCategory::order &&
      kind != OpCategory::contraction && node.op() != Op::scatter_add) {
    return false;
  }
  return is_storage_float(node.input(0)->dtype());
}

NodePtr f32_form(const Node& node) {
  TJ_INTERNAL_CHECK(has_f32_form(node)) << "f32_form: " << op_name(node.op()) << " of "
                                        << dtype_name(node.input(0)->dtype()) << " has none";
  std::vector<NodePtr> widened;
  for (const NodePtr& input : node.inputs())
    widened.push_back(is_storage_float(input->dtype()) ? make_cast(input, DType::f32) : input);  // not indices
  NodePtr in_f32 = Node::make(node.op(), std::move(widened), node.attrs());
  return is_floating(node.dtype()) ? make_cast(std::move(in_f32), node.dtype()) : in_f32;
}

bool widens_storage_float(const Node& node) {
  return node.op() == Op::cast && node.dtype() == DType::f32 && is_storage_float(node.input(0)->dtype());
}

}  // namespace tensorjit::ir
