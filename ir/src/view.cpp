#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/view.hpp>

namespace tensorjit::ir {
namespace {

// numpy's _attempt_nocopy_reshape: walk groups of input axes and output axes with equal element
// counts; within a group the input must be contiguous (each stride the next one times its extent).
std::optional<Layout> reshape_layout(const Layout& in, const Shape& out_shape) {
  Layout out{out_shape, Strides(out_shape.size(), 0), in.offset};
  for (auto e : in.shape)
    if (e == 0) {
      out.strides = contiguous_strides(out_shape);
      return out;
    }
  // Size-1 input axes carry no information; drop them.
  Shape old_shape;
  Strides old_strides;
  for (std::size_t i = 0; i < in.shape.size(); ++i)
    if (in.shape[i] != 1) {
      old_shape.push_back(in.shape[i]);
      old_strides.push_back(in.strides[i]);
    }
  const std::size_t old_rank = old_shape.size(), new_rank = out_shape.size();
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < new_rank && oi < old_rank) {
    std::int64_t np = out_shape[ni], op = old_shape[oi];
    while (np != op) {
      if (np < op) np *= out_shape[nj++];
      else op *= old_shape[oj++];
    }
    for (std::size_t k = oi; k + 1 < oj; ++k)
      if (old_strides[k] != old_shape[k + 1] * old_strides[k + 1]) return std::nullopt;
    out.strides[nj - 1] = old_strides[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k) out.strides[k - 1] = out.strides[k] * out_shape[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 output axes: any stride works; use the contiguous one.
  for (std::size_t k = ni; k < new_rank; ++k) out.strides[k] = 1;
  return out;
}

}  // namespace

std::optional<Layout> apply_view(const Layout& in, const Node& view) {
  switch (view.op()) {
    case Op::reshape: return reshape_layout(in, view.shape());
    case Op::permute: {
      const auto& perm = view.attr<PermuteAttr>().perm;
      Layout out{view.shape(), Strides(perm.size()), in.offset};
      for (std::size_t i = 0; i < perm.size(); ++i) out.strides[i] = in.strides[perm[i]];
      return out;
    }
    case Op::expand: {
      const Shape& shape = view.shape();
      const std::size_t lead = shape.size() - in.shape.size();
      Layout out{shape, Strides(shape.size(), 0), in.offset};
      for (std::size_t i = 0; i < in.shape.size(); ++i)
        out.strides[lead + i] = in.shape[i] == shape[lead + i] ? in.strides[i] : 0;
      return out;
    }
    case Op::slice: {
      const auto& s = view.attr<SliceAttr>();
      Layout out{view.shape(), in.strides, in.offset};
      if (s.count > 0) out.offset += s.start * in.strides[s.axis];
      // With one element the step is never taken, and it may be as large as INT64_MAX.
      if (s.count > 1) out.strides[s.axis] = in.strides[s.axis] * s.step;
      return out;
    }
    default: break;
  }
  TJ_INTERNAL_CHECK(false) << "apply_view: " << op_name(view.op()) << " is not a movement op";
  return std::nullopt;
}

}  // namespace tensorjit::ir
