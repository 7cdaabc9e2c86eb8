// take, take_along_axis, index_add, scatter_add and one_hot on the IR's two indexing ops (ops.def,
// docs/indexing.md). Both ops index along one axis with indices of the result's (the values')
// shape; take and index_add spread their indices over the axes they occupy and broadcast them
// along the others with views, so the kernel reads each index where it is needed, and the node
// records which axes the user's indices were (IndexAttr::index_axes) for its error messages.
#include <tensorjit/functions.hpp>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

using detail::checked_axis;
using detail::describe;
using detail::node_of;
using detail::wrap;

namespace {

ir::NodePtr index_node(std::string_view name, const Tensor& indices) {
  ir::NodePtr node = node_of(indices, name);
  TJ_CHECK(is_integer(node->dtype())) << name << ": indices must be i32 or i64, got " << describe(indices)
                                      << "; convert them with astype(tj::i64)";
  return node;
}

// `shape` with its axis `axis` replaced by the axes `middle`.
Shape replace_axis(const Shape& shape, std::size_t axis, const Shape& middle) {
  Shape out(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), middle.begin(), middle.end());
  out.insert(out.end(), shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape.end());
  return out;
}

// take(x, indices, axis) as one gather: x and the indices both broadcast to the result's shape
// x[:axis] + indices.shape + x[axis+1:], x's axis standing at the indices' last axis. A 0-d index
// is taken as [1], and that axis dropped again (a view).
ir::NodePtr take_node(const ir::NodePtr& x, ir::NodePtr indices, int axis, ir::IndexOrigin origin) {
  const bool scalar_index = indices->rank() == 0;
  if (scalar_index) indices = ir::make_reshape(indices, {1});
  const Shape index_shape = indices->shape();
  const auto a = static_cast<std::size_t>(axis);
  const std::size_t m = index_shape.size();
  const std::int64_t extent = x->shape()[a];
  const Shape result = replace_axis(x->shape(), a, index_shape);

  Shape x_axes(m - 1, 1);
  x_axes.push_back(extent);
  Shape x_spread(index_shape.begin(), index_shape.end() - 1);
  x_spread.push_back(extent);
  ir::NodePtr spread_x = ir::make_expand(ir::make_reshape(x, replace_axis(x->shape(), a, x_axes)),
                                         replace_axis(x->shape(), a, x_spread));
  Shape index_axes(x->shape().size(), 1);
  ir::NodePtr spread_indices = ir::make_expand(ir::make_reshape(std::move(indices), replace_axis(index_axes, a, index_shape)), result);
  const int gathered_axis = axis + static_cast<int>(m) - 1;
  ir::NodePtr gathered = ir::make_gather(std::move(spread_x), std::move(spread_indices),
                                         ir::IndexAttr{gathered_axis, static_cast<int>(m), origin});
  if (!scalar_index) return gathered;
  return ir::make_reshape(std::move(gathered), replace_axis(x->shape(), a, {}));
}

// `values` of `target` shape: equal extents kept, extent 1 broadcast, a longer extent cut to its
// first elements (torch's scatter_add reads only those).
ir::NodePtr fit_values(std::string_view name, ir::NodePtr values, const Shape& target) {
  TJ_CHECK(values->rank() <= static_cast<int>(target.size()))
      << name << ": values " << dtype_name(values->dtype()) << ir::shape_str(values->shape()) << " have more axes than the "
      << ir::shape_str(target) << " they are added as";
  const std::size_t lead = target.size() - values->shape().size();
  Shape padded(lead, 1);
  padded.insert(padded.end(), values->shape().begin(), values->shape().end());
  values = ir::make_reshape(std::move(values), padded);
  for (std::size_t d = 0; d < target.size(); ++d) {
    if (padded[d] > target[d] && name == "scatter_add")
      values = ir::Node::make(ir::Op::slice, {std::move(values)}, ir::SliceAttr{static_cast<int>(d), 0, 1, target[d]});
  }
  bool fits = true;
  for (std::size_t d = 0; d < target.size(); ++d) fits = fits && (values->shape()[d] == target[d] || values->shape()[d] == 1);
  TJ_CHECK(fits) << name << ": values " << dtype_name(values->dtype()) << ir::shape_str(padded)
                 << " do not broadcast to " << ir::shape_str(target) << ", the shape they are added as";
  return ir::make_expand(std::move(values), target);
}

ir::NodePtr value_node(std::string_view name, const Tensor& base, const Tensor& values) {
  ir::NodePtr node = node_of(values, name);
  TJ_CHECK(node->dtype() == base.dtype())
      << name << ": values " << describe(values) << " must have the dtype of the base " << describe(base)
      << "; convert them with astype";
  TJ_CHECK(!is_bool(node->dtype())) << name << ": cannot add bool values; convert them with astype";
  return node;
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  ir::NodePtr node = node_of(x, "take");
  TJ_CHECK(node->rank() > 0) << "take: cannot index the 0-d " << describe(x) << " along an axis; reshape it to [1]";
  const int a = checked_axis(axis, node->rank(), "take", node->shape());
  return wrap(take_node(node, index_node("take", indices), a, ir::IndexOrigin::take));
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  ir::NodePtr node = node_of(x, "take_along_axis");
  ir::NodePtr index = index_node("take_along_axis", indices);
  TJ_CHECK(node->rank() > 0 && node->rank() == index->rank())
      << "take_along_axis: x " << describe(x) << " and indices " << describe(indices)
      << " must have one rank, at least 1 (numpy)";
  const int a = checked_axis(axis, node->rank(), "take_along_axis", node->shape());
  // The other axes broadcast against each other.
  Shape x_shape = node->shape(), index_shape = index->shape();
  for (int d = 0; d < node->rank(); ++d) {
    if (d == a) continue;
    std::int64_t& xe = x_shape[d];
    std::int64_t& ie = index_shape[d];
    TJ_CHECK(xe == ie || xe == 1 || ie == 1)
        << "take_along_axis: x " << describe(x) << " and indices " << describe(indices)
        << " do not broadcast along axis " << d;
    xe = ie = xe == 1 ? ie : xe;
  }
  return wrap(ir::make_gather(ir::make_expand(node, x_shape), ir::make_expand(index, index_shape),
                              ir::IndexAttr{a, 0, ir::IndexOrigin::take_along_axis}));
}

Tensor index_add(const Tensor& base, std::int64_t axis, const Tensor& indices, const Tensor& values) {
  ir::NodePtr node = node_of(base, "index_add");
  ir::NodePtr index = index_node("index_add", indices);
  TJ_CHECK(node->rank() > 0) << "index_add: cannot index the 0-d " << describe(base) << "; reshape it to [1]";
  TJ_CHECK(index->rank() == 1) << "index_add: indices " << describe(indices) << " must be 1-D (torch)";
  const int a = checked_axis(axis, node->rank(), "index_add", node->shape());
  const auto d = static_cast<std::size_t>(a);
  const Shape target = replace_axis(node->shape(), d, index->shape());
  ir::NodePtr added = fit_values("index_add", value_node("index_add", base, values), target);
  Shape index_axes(node->shape().size(), 1);
  ir::NodePtr spread = ir::make_expand(ir::make_reshape(index, replace_axis(index_axes, d, index->shape())), target);
  return wrap(ir::make_scatter_add(node, std::move(spread), std::move(added), ir::IndexAttr{a, 1, ir::IndexOrigin::index_add}));
}

Tensor scatter_add(const Tensor& base, std::int64_t axis, const Tensor& indices, const Tensor& values) {
  ir::NodePtr node = node_of(base, "scatter_add");
  ir::NodePtr index = index_node("scatter_add", indices);
  TJ_CHECK(node->rank() > 0 && node->rank() == index->rank())
      << "scatter_add: base " << describe(base) << " and indices " << describe(indices)
      << " must have one rank, at least 1";
  const int a = checked_axis(axis, node->rank(), "scatter_add", node->shape());
  ir::NodePtr added = fit_values("scatter_add", value_node("scatter_add", base, values), index->shape());
  return wrap(ir::make_scatter_add(node, index, std::move(added), ir::IndexAttr{a, 0, ir::IndexOrigin::scatter_add}));
}

Tensor one_hot(const Tensor& indices, std::int64_t classes, DType dtype) {
  ir::NodePtr index = index_node("one_hot", indices);
  detail::check_dtype(dtype, "one_hot");
  TJ_CHECK(classes >= 0) << "one_hot: " << classes << " classes; pass the number of classes, 0 or more";
  // The indices made non-negative and checked by a gather of 0, 1, ..., classes - 1, then compared
  // with the class of each position of the last axis.
  ir::NodePtr classes_iota = ir::make_iota(DType::i64, classes, 0, 1);
  ir::NodePtr resolved = take_node(classes_iota, index, 0, ir::IndexOrigin::one_hot);
  Shape shape = index->shape();
  Shape column = shape;
  column.push_back(1);
  shape.push_back(classes);
  Shape row(index->shape().size(), 1);
  row.push_back(classes);
  ir::NodePtr equal = ir::make_binary(ir::Op::eq, ir::make_expand(ir::make_reshape(resolved, column), shape),
                                      ir::make_expand(ir::make_reshape(classes_iota, row), shape));
  return wrap(ir::make_cast(std::move(equal), dtype));
}

}  // namespace tensorjit
