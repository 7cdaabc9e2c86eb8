#include "oracle_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace oracle {
namespace {

using S = const Statement&;

std::int64_t uniform(Rng& rng, std::int64_t low, std::int64_t high) {  // inclusive
  return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
}
bool coin(Rng& rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }
std::int64_t integer(S s, const char* key) { return std::stoll(s.attr(key)); }
double real(S s, const char* key) { return std::stod(s.attr(key)); }
bool flag(S s, const char* key) { return s.attr(key) == "1"; }

// An axis of x, negative half the time (a 0-d tensor has axis 0 for the scans, as documented).
std::int64_t draw_axis(Rng& rng, const tj::Tensor& x) {
  const std::int64_t rank = std::max(x.rank(), 1);
  const std::int64_t axis = uniform(rng, 0, rank - 1);
  return coin(rng) ? axis : axis - rank;
}

Attrs no_attrs(Rng&, const Operands&) { return {}; }
Attrs axis_attrs(Rng& rng, const Operands& x) { return {{"axis", std::to_string(draw_axis(rng, x[0]))}}; }

// A set of distinct axes, or "all" (the overload without axes).
Attrs reduce_attrs(Rng& rng, const Operands& x) {
  Attrs attrs{{"keepdims", coin(rng) ? "1" : "0"}};
  if (x[0].rank() == 0 || coin(rng, 0.3)) {
    attrs["axes"] = "all";
    return attrs;
  }
  std::vector<std::int64_t> axes;
  for (std::int64_t axis = 0; axis < x[0].rank(); ++axis)
    if (coin(rng)) axes.push_back(coin(rng) ? axis : axis - x[0].rank());
  if (axes.empty()) axes.push_back(draw_axis(rng, x[0]));
  attrs["axes"] = list_text(axes);
  return attrs;
}

std::vector<std::int64_t> axes_of(S s) { return s.attr("axes") == "all" ? std::vector<std::int64_t>{} : parse_list(s.attr("axes")); }

Attrs arg_reduce_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0 || coin(rng, 0.3)) return {{"axis", "all"}};
  return {{"axis", std::to_string(draw_axis(rng, x[0]))}, {"keepdims", coin(rng) ? "1" : "0"}};
}
template <tj::Tensor (tj::Tensor::*F)(std::int64_t, bool) const, tj::Tensor (tj::Tensor::*G)() const>
tj::Tensor arg_reduce(const Operands& x, S s) {
  if (s.attr("axis") == "all") return (x[0].*G)();
  return (x[0].*F)(integer(s, "axis"), flag(s, "keepdims"));
}

// The first four are the creation ops' dtypes; astype, eye and one_hot draw from all.
const char* kDTypes[] = {"f32", "f64", "i32", "i64", "bool", "f16", "bf16"};

// A weakly typed C++ scalar: a double, an int64_t or a bool.
Attrs scalar_attrs(Rng& rng, const Operands&) {
  switch (uniform(rng, 0, 5)) {
    case 0: return {{"scalar", "i"}, {"value", std::to_string(uniform(rng, -5, 5))}};
    case 1: return {{"scalar", "b"}, {"value", coin(rng) ? "1" : "0"}};
    case 2: return {{"scalar", "f"}, {"value", "0.5"}};
    case 3: return {{"scalar", "f"}, {"value", "-2.75"}};
    default: {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", std::normal_distribution<double>(0, 3)(rng));
      return {{"scalar", "f"}, {"value", text}};
    }
  }
}
template <typename F> tj::Tensor with_scalar(S s, F f) {
  const std::string& kind = s.attr("scalar");
  if (kind == "i") return f(static_cast<std::int64_t>(integer(s, "value")));
  if (kind == "b") return f(flag(s, "value"));
  return f(real(s, "value"));
}

Attrs cast_attrs(Rng& rng, const Operands&) { return {{"dtype", kDTypes[uniform(rng, 0, 6)]}}; }

Attrs order_attrs(Rng& rng, const Operands& x) {
  return {{"axis", std::to_string(draw_axis(rng, x[0]))}, {"descending", coin(rng) ? "1" : "0"}};
}
Attrs topk_attrs(Rng& rng, const Operands& x) {
  const std::int64_t axis = draw_axis(rng, x[0]);
  const std::int64_t extent = x[0].rank() == 0 ? 1 : x[0].shape()[static_cast<std::size_t>(axis < 0 ? axis + x[0].rank() : axis)];
  return {{"axis", std::to_string(axis)}, {"k", std::to_string(uniform(rng, 0, extent))}};
}

// Merges two neighbouring axes, splits one whose extent is even, flattens, or adds a 1.
Attrs reshape_attrs(Rng& rng, const Operands& x) {
  tj::Shape shape = x[0].shape();
  const auto choice = uniform(rng, 0, 3);
  if (choice == 0 || shape.size() < 2) {
    shape = coin(rng) ? tj::Shape{-1} : tj::Shape{x[0].size()};
  } else if (choice == 1) {
    const auto at = static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(shape.size()) - 2));
    shape[at] *= shape[at + 1];
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  } else if (choice == 2) {
    const auto at = static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(shape.size()) - 1));
    if (shape[at] % 2 != 0) throw tj::Error("reshape: no even extent to split");
    shape[at] /= 2;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(at), 2);
  } else {
    shape.insert(shape.begin() + uniform(rng, 0, static_cast<std::int64_t>(shape.size())), 1);
  }
  return {{"shape", list_text(shape)}};
}
Attrs permute_attrs(Rng& rng, const Operands& x) {
  std::vector<std::int64_t> perm(static_cast<std::size_t>(x[0].rank()));
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::int64_t>(i);
  std::shuffle(perm.begin(), perm.end(), rng);
  return {{"perm", list_text(perm)}};
}
// A size-1 axis to a new extent, or a new leading axis.
Attrs expand_attrs(Rng& rng, const Operands& x) {
  tj::Shape shape = x[0].shape();
  std::vector<std::size_t> ones;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1) ones.push_back(i);
  const std::int64_t extent = std::vector<std::int64_t>{0, 2, 3, 5, 17, 64}[static_cast<std::size_t>(uniform(rng, 0, 5))];
  if (ones.empty() || coin(rng, 0.3)) shape.insert(shape.begin(), extent);
  else shape[ones[static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(ones.size()) - 1))]] = extent;
  return {{"shape", list_text(shape)}};
}
Attrs slice_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0) throw tj::Error("slice: no axis");
  const std::int64_t axis = draw_axis(rng, x[0]);
  const std::int64_t n = x[0].shape()[static_cast<std::size_t>(axis < 0 ? axis + x[0].rank() : axis)];
  const std::int64_t step = std::vector<std::int64_t>{1, 2, 3, -1, -2}[static_cast<std::size_t>(uniform(rng, 0, 4))];
  Attrs attrs{{"axis", std::to_string(axis)}, {"step", std::to_string(step)}};
  if (coin(rng, 0.8)) attrs["start"] = std::to_string(uniform(rng, -n - 1, n + 1));
  if (coin(rng, 0.8)) attrs["stop"] = std::to_string(uniform(rng, -n - 1, n + 1));
  return attrs;
}
std::optional<std::int64_t> bound_of(S s, const char* key) {
  if (!s.has(key)) return std::nullopt;
  return integer(s, key);
}
Attrs unsqueeze_attrs(Rng& rng, const Operands& x) { return {{"axis", std::to_string(uniform(rng, -x[0].rank() - 1, x[0].rank()))}}; }

Attrs eps_attrs(Rng& rng, const Operands&) { return {{"eps", coin(rng) ? "1e-05" : "0.25"}}; }

// Creation ops draw their own small arguments; integer and fractional ones alike.
double draw_bound(Rng& rng) {
  const double values[] = {-3, -1, 0, 0.5, 1, 1.5, 2.25, 5, 7, 10.1, -0.3, 0.3, 100};
  return values[uniform(rng, 0, 12)];
}
std::string number_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
Attrs arange_attrs(Rng& rng, const Operands&) {
  const double start = draw_bound(rng), stop = draw_bound(rng);
  double step = std::vector<double>{1, 2, 0.5, 1.5, 0.1, 3, 0.7}[static_cast<std::size_t>(uniform(rng, 0, 6))];
  if (stop < start) step = -step;
  return {{"start", number_text(start)}, {"stop", number_text(stop)}, {"step", number_text(step)},
          {"dtype", kDTypes[uniform(rng, 0, 3)]}};
}
Attrs linspace_attrs(Rng& rng, const Operands&) {
  return {{"start", number_text(draw_bound(rng))}, {"stop", number_text(draw_bound(rng))},
          {"num", std::to_string(std::vector<int>{0, 1, 2, 5, 129, 1000}[static_cast<std::size_t>(uniform(rng, 0, 5))])},
          {"dtype", kDTypes[uniform(rng, 0, 3)]}};
}

// var and std: a reduction's axes, and PyTorch's correction (numpy's ddof).
Attrs moment_attrs(Rng& rng, const Operands& x) {
  Attrs attrs = reduce_attrs(rng, x);
  attrs["correction"] = std::to_string(uniform(rng, 0, 2));
  return attrs;
}
Attrs eye_attrs(Rng& rng, const Operands&) {
  const std::int64_t sizes[] = {0, 1, 2, 3, 5, 17, 64};
  return {{"n", std::to_string(sizes[uniform(rng, 0, 6)])}, {"m", coin(rng) ? "-1" : std::to_string(sizes[uniform(rng, 0, 6)])},
          {"dtype", kDTypes[uniform(rng, 0, 6)]}};
}
Attrs diagonal_attrs(Rng& rng, const Operands&) { return {{"k", std::to_string(uniform(rng, -4, 4))}}; }

// ---- indexing: the indices (and values) are new inputs of the shapes the op needs ----
std::int64_t extent_at(const tj::Tensor& x, std::int64_t axis) {
  return x.shape()[static_cast<std::size_t>(axis < 0 ? axis + x.rank() : axis)];
}
std::int64_t axis_attr(const Attrs& attrs) { return std::stoll(attrs.at("axis")); }
tj::DType index_dtype(Rng& rng) { return coin(rng) ? tj::i64 : tj::i32; }
std::int64_t small_extent(Rng& rng, std::int64_t n) { return std::vector<std::int64_t>{0, 1, 2, 3, 7, 33, n, n}[static_cast<std::size_t>(uniform(rng, 0, 7))]; }

Attrs index_axis_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0) throw tj::Error("indexing: a 0-d operand has no axis");
  return axis_attrs(rng, x);
}
// take: indices of any shape (rank 0 to 2) into x's axis.
std::vector<Fresh> take_fresh(Rng& rng, const Operands& x, const Attrs& attrs) {
  const std::int64_t n = extent_at(x[0], axis_attr(attrs));
  if (n == 0) throw tj::Error("take: no element to index");
  tj::Shape shape(static_cast<std::size_t>(uniform(rng, 0, 2)));
  for (std::int64_t& e : shape) e = std::max<std::int64_t>(small_extent(rng, n), coin(rng, 0.9) ? 1 : 0);
  return {{index_dtype(rng), shape, n}};
}
// take_along_axis: x's shape but along the axis, some other axes 1 (they broadcast).
std::vector<Fresh> along_fresh(Rng& rng, const Operands& x, const Attrs& attrs) {
  const std::int64_t axis = axis_attr(attrs) < 0 ? axis_attr(attrs) + x[0].rank() : axis_attr(attrs);
  const std::int64_t n = extent_at(x[0], axis);
  tj::Shape shape = x[0].shape();
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (static_cast<std::int64_t>(a) == axis) shape[a] = n == 0 ? 0 : small_extent(rng, n);
    else if (coin(rng, 0.2)) shape[a] = 1;
  return {{index_dtype(rng), shape, std::max<std::int64_t>(n, 1)}};
}
// index_add: 1-D indices, and values of base's shape with the indices' length along the axis.
std::vector<Fresh> index_add_fresh(Rng& rng, const Operands& x, const Attrs& attrs) {
  const std::int64_t n = extent_at(x[0], axis_attr(attrs));
  if (n == 0) throw tj::Error("index_add: no element to add to");
  const std::int64_t length = small_extent(rng, n);
  tj::Shape shape = x[0].shape();
  shape[static_cast<std::size_t>(axis_attr(attrs) < 0 ? axis_attr(attrs) + x[0].rank() : axis_attr(attrs))] = length;
  return {{index_dtype(rng), {length}, n}, {x[0].dtype(), shape}};
}
// scatter_add: indices of base's shape but along the axis, and values of the indices' shape.
std::vector<Fresh> scatter_fresh(Rng& rng, const Operands& x, const Attrs& attrs) {
  const std::int64_t n = extent_at(x[0], axis_attr(attrs));
  if (n == 0) throw tj::Error("scatter_add: no element to add to");
  tj::Shape shape = x[0].shape();
  shape[static_cast<std::size_t>(axis_attr(attrs) < 0 ? axis_attr(attrs) + x[0].rank() : axis_attr(attrs))] = small_extent(rng, n);
  return {{index_dtype(rng), shape, n}, {x[0].dtype(), shape}};
}
Attrs one_hot_attrs(Rng& rng, const Operands&) {
  return {{"classes", std::to_string(std::vector<int>{1, 2, 5, 17}[static_cast<std::size_t>(uniform(rng, 0, 3))])},
          {"dtype", kDTypes[uniform(rng, 0, 6)]}};
}
std::vector<Fresh> one_hot_fresh(Rng& rng, const Operands&, const Attrs& attrs) {
  tj::Shape shape(static_cast<std::size_t>(uniform(rng, 0, 2)));
  for (std::int64_t& e : shape) e = std::vector<std::int64_t>{0, 1, 3, 7, 64}[static_cast<std::size_t>(uniform(rng, 0, 4))];
  return {{index_dtype(rng), shape, std::stoll(attrs.at("classes"))}};
}

// ---- joining: concat, stack, split, pad (docs/indexing.md, "Joining") ----
std::int64_t normalized(std::int64_t axis, std::int64_t rank) { return axis < 0 ? axis + rank : axis; }

// concat: an axis along which the operands agree on every other extent.
Attrs concat_attrs(Rng& rng, const Operands& x) {
  const tj::Shape& first = x[0].shape();
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < first.size(); ++d) {
    bool fits = true;
    for (const tj::Tensor& t : x)
      for (std::size_t e = 0; e < first.size(); ++e) fits = fits && t.rank() == x[0].rank() && (e == d || t.shape()[e] == first[e]);
    if (fits) axes.push_back(static_cast<std::int64_t>(d));
  }
  if (axes.empty()) throw tj::Error("concat: no axis along which the operands join");
  const std::int64_t axis = axes[static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(axes.size()) - 1))];
  return {{"axis", std::to_string(coin(rng) ? axis : axis - x[0].rank())}};
}
// concat_new: the operand and two new inputs of its shape but along the axis (0 to n elements
// there), of its dtype or another (promotion), in any layout and distribution.
Attrs concat_new_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0) throw tj::Error("concat: a 0-d operand has no axis");
  return axis_attrs(rng, x);
}
std::vector<Fresh> concat_new_fresh(Rng& rng, const Operands& x, const Attrs& attrs) {
  std::vector<Fresh> parts;
  for (int i = 0; i < 2; ++i) {
    tj::Shape shape = x[0].shape();
    std::int64_t& extent = shape[static_cast<std::size_t>(normalized(axis_attr(attrs), x[0].rank()))];
    extent = std::vector<std::int64_t>{0, 1, 2, 3, 7, extent, extent}[static_cast<std::size_t>(uniform(rng, 0, 6))];
    parts.push_back({coin(rng) ? x[0].dtype() : parse_dtype(kDTypes[uniform(rng, 0, 6)]), shape});
  }
  return parts;
}
// A broadcast view of 2^62 bytes (allowed): two of them joined are too large to allocate.
tj::Tensor too_big_to_join(tj::DType dtype) {
  return tj::zeros({1}, dtype).expand({(std::int64_t{1} << 62) / static_cast<std::int64_t>(tj::itemsize(dtype))});
}
std::vector<Misuse> concat_misuse(const Operands& x, const Statement& s) {
  const std::int64_t rank = x[0].rank();
  const tj::Tensor a = x[0], b = x[1];
  const std::int64_t axis = integer(s, "axis");
  std::vector<Misuse> misuses = {
      {"concat", "axis = rank", [=] { return tj::concat({a, b}, rank); }},
      {"concat", "axis = -rank - 1", [=] { return tj::concat({a, b}, -rank - 1); }},
      {"concat", "no tensor", [] { return tj::concat({}, 0); }},
      {"concat", "a 0-d tensor", [=] { return tj::concat({a, tj::scalar(1.0f)}, axis); }},
      {"concat", "a tensor of another rank", [=] { return tj::concat({a, b.unsqueeze(0)}, axis); }},
  };
  const tj::Tensor big = too_big_to_join(a.dtype());
  misuses.push_back({"concat", "a result too large to allocate", [=] { return tj::concat({big, big}, 0); }});
  if (rank >= 2) {  // another extent on an axis other than the joined one
    tj::Shape other = b.shape();
    other[static_cast<std::size_t>(normalized(axis, rank) == 0 ? 1 : 0)] += 1;
    misuses.push_back({"concat", "another extent off the axis", [=] { return tj::concat({a, tj::zeros(other, b.dtype())}, axis); }});
  }
  return misuses;
}

// stack: a new axis in [-(rank + 1), rank].
Attrs stack_attrs(Rng& rng, const Operands& x) {
  return {{"axis", std::to_string(uniform(rng, -x[0].rank() - 1, x[0].rank()))}};
}
std::vector<Misuse> stack_misuse(const Operands& x, const Statement& s) {
  const std::int64_t rank = x[0].rank();
  const tj::Tensor a = x[0], b = x[1];
  const std::int64_t axis = integer(s, "axis");
  const tj::Tensor big = too_big_to_join(a.dtype());
  return {{"stack", "a result too large to allocate", [=] { return tj::stack({big, big}, 0); }},
          {"stack", "axis = rank + 1", [=] { return tj::stack({a, b}, rank + 1); }},
          {"stack", "axis = -rank - 2", [=] { return tj::stack({a, b}, -rank - 2); }},
          {"stack", "no tensor", [] { return tj::stack({}, 0); }},
          {"stack", "another shape", [=] { return tj::stack({a, b.unsqueeze(0)}, axis); }}};
}

// split: sizes that add up to the axis's extent (some 0), and which piece the statement is;
// split_concat: the pieces joined in reverse order along the same axis.
Attrs split_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0) throw tj::Error("split: a 0-d operand has no axis");
  const std::int64_t axis = draw_axis(rng, x[0]);
  std::int64_t left = extent_at(x[0], axis);
  std::vector<std::int64_t> sizes;
  const std::int64_t pieces = uniform(rng, 1, 4);
  for (std::int64_t i = 0; i + 1 < pieces; ++i) {
    sizes.push_back(coin(rng, 0.2) ? 0 : uniform(rng, 0, left));
    left -= sizes.back();
  }
  sizes.push_back(left);
  std::shuffle(sizes.begin(), sizes.end(), rng);
  return {{"axis", std::to_string(axis)}, {"sizes", list_text(sizes)}, {"part", std::to_string(uniform(rng, 0, pieces - 1))}};
}
tj::Tensor split_concat(const Operands& x, S s) {
  std::vector<tj::Tensor> parts = tj::split(x[0], parse_list(s.attr("sizes")), integer(s, "axis"));
  std::reverse(parts.begin(), parts.end());
  return tj::concat(parts, integer(s, "axis"));
}
std::vector<Misuse> split_misuse(const Operands& x, const Statement& s) {
  const tj::Tensor a = x[0];
  const std::int64_t rank = a.rank(), axis = integer(s, "axis"), n = extent_at(a, axis);
  const std::vector<std::int64_t> sizes = parse_list(s.attr("sizes"));
  std::vector<std::int64_t> more = sizes;
  more.back() += 1;
  const std::vector<std::int64_t> negative = {n + 1, -1};  // adding up to n, one negative
  return {{"split", "sizes adding up to n + 1", [=] { return tj::split(a, more, axis)[0]; }},
          {"split", "a negative size", [=] { return tj::split(a, negative, axis)[0]; }},
          {"split", "axis = rank", [=] { return tj::split(a, sizes, rank)[0]; }},
          {"split", "axis = -rank - 1", [=] { return tj::split(a, sizes, -rank - 1)[0]; }},
          {"split", "a 0-d tensor", [=] { return tj::split(a.sum(), {1}, 0)[0]; }}};
}

// pad: (before, after) per axis, or one pair for every axis; a value of any kind (a cast converts
// it to x's dtype: NaN, infinities and out-of-range values among them).
std::vector<std::pair<std::int64_t, std::int64_t>> widths_of(S s) {
  std::vector<std::pair<std::int64_t, std::int64_t>> widths;
  const std::vector<std::int64_t> flat = parse_list(s.attr("widths"));
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) widths.emplace_back(flat[i], flat[i + 1]);
  return widths;
}
Attrs pad_attrs(Rng& rng, const Operands& x) {
  if (x[0].rank() == 0) throw tj::Error("pad: a 0-d operand has no axis");
  const std::int64_t pairs = coin(rng, 0.25) ? 1 : x[0].rank();
  std::vector<std::int64_t> widths;
  for (std::int64_t i = 0; i < 2 * pairs; ++i) widths.push_back(std::vector<std::int64_t>{0, 0, 1, 2, 3, 7, 33}[static_cast<std::size_t>(uniform(rng, 0, 6))]);
  const double values[] = {0, -0.0, 1, -2.5, 0.5, 7, 1e10, -1e10, 3e38, 70000, 1e-45, NAN, INFINITY, -INFINITY};
  return {{"widths", list_text(widths)}, {"value", number_text(values[uniform(rng, 0, 13)])}};
}
std::vector<Misuse> pad_misuse(const Operands& x, const Statement& s) {
  const tj::Tensor a = x[0];
  auto widths = widths_of(s);
  auto negative = widths, more = widths, huge = widths;
  negative.back().second = -1;
  more.insert(more.end(), widths.size() == 1 ? static_cast<std::size_t>(a.rank()) : 1, {0, 0});
  huge.back() = {std::numeric_limits<std::int64_t>::max(), 1};
  const double value = real(s, "value");
  return {{"pad", "a negative width", [=] { return tj::pad(a, negative, value); }},
          {"pad", "more pairs than axes", [=] { return tj::pad(a, more, value); }},
          {"pad", "widths that overflow int64", [=] { return tj::pad(a, huge, value); }},
          {"pad", "a 0-d tensor", [=] { return tj::pad(a.sum(), {{1, 1}}, value); }}};
}

#define UNARY(op) {#op, 1, Pick::any, no_attrs, [](const Operands& x, S) { return tj::op(x[0]); }}
#define BINARY(name, expr) {#name, 2, Pick::broadcast, no_attrs, [](const Operands& x, S) { return expr; }}
#define WITH_SCALAR(name, expr) \
  {#name, 1, Pick::any, scalar_attrs, [](const Operands& x, S s) { return with_scalar(s, [&](auto v) { return expr; }); }}
#define REDUCE(name) \
  {#name, 1, Pick::any, reduce_attrs, [](const Operands& x, S s) { \
     return s.attr("axes") == "all" ? (flag(s, "keepdims") ? x[0].name(axes_of(s), true) : x[0].name()) \
                                    : x[0].name(axes_of(s), flag(s, "keepdims")); }}

const std::vector<OracleOp> kOps = {
    // creation
    {"arange", 0, Pick::any, arange_attrs, [](const Operands&, S s) {
       return tj::arange(real(s, "start"), real(s, "stop"), real(s, "step"), parse_dtype(s.attr("dtype"))); }},
    {"linspace", 0, Pick::any, linspace_attrs, [](const Operands&, S s) {
       return tj::linspace(real(s, "start"), real(s, "stop"), integer(s, "num"), parse_dtype(s.attr("dtype"))); }},
    {"eye", 0, Pick::any, eye_attrs, [](const Operands&, S s) {
       return tj::eye(integer(s, "n"), integer(s, "m"), parse_dtype(s.attr("dtype"))); }},
    // unary elementwise
    UNARY(abs), UNARY(sign), UNARY(square), UNARY(sqrt), UNARY(rsqrt), UNARY(reciprocal),
    UNARY(exp), UNARY(exp2), UNARY(expm1), UNARY(log), UNARY(log2), UNARY(log1p), UNARY(sin),
    UNARY(cos), UNARY(tanh), UNARY(sigmoid), UNARY(erf), UNARY(relu), UNARY(gelu),
    UNARY(gelu_tanh), UNARY(silu), UNARY(softplus), UNARY(logical_not), UNARY(tan), UNARY(atan),
    UNARY(floor), UNARY(ceil), UNARY(round), UNARY(trunc), UNARY(isnan), UNARY(isinf), UNARY(isfinite),
    {"neg", 1, Pick::any, no_attrs, [](const Operands& x, S) { return -x[0]; }},
    {"invert", 1, Pick::any, no_attrs, [](const Operands& x, S) { return ~x[0]; }},
    {"astype", 1, Pick::any, cast_attrs, [](const Operands& x, S s) { return x[0].astype(parse_dtype(s.attr("dtype"))); }},
    // binary elementwise, broadcasting and promoting
    BINARY(add, x[0] + x[1]), BINARY(sub, x[0] - x[1]), BINARY(mul, x[0] * x[1]), BINARY(div, x[0] / x[1]),
    BINARY(floor_divide, tj::floor_divide(x[0], x[1])), BINARY(remainder, tj::remainder(x[0], x[1])),
    BINARY(maximum, tj::maximum(x[0], x[1])), BINARY(minimum, tj::minimum(x[0], x[1])),
    BINARY(pow, tj::pow(x[0], x[1])),
    BINARY(eq, x[0] == x[1]), BINARY(ne, x[0] != x[1]), BINARY(lt, x[0] < x[1]),
    BINARY(le, x[0] <= x[1]), BINARY(gt, x[0] > x[1]), BINARY(ge, x[0] >= x[1]),
    BINARY(logical_and, tj::logical_and(x[0], x[1])), BINARY(logical_or, tj::logical_or(x[0], x[1])),
    BINARY(bitwise_and, x[0] & x[1]), BINARY(bitwise_or, x[0] | x[1]), BINARY(bitwise_xor, x[0] ^ x[1]),
    BINARY(left_shift, x[0] << x[1]), BINARY(right_shift, x[0] >> x[1]), BINARY(atan2, tj::atan2(x[0], x[1])),
    // with a weakly typed C++ scalar
    WITH_SCALAR(add_scalar, x[0] + v), WITH_SCALAR(rsub_scalar, v - x[0]), WITH_SCALAR(mul_scalar, x[0] * v),
    WITH_SCALAR(div_scalar, x[0] / v), WITH_SCALAR(lt_scalar, x[0] < v), WITH_SCALAR(maximum_scalar, tj::maximum(x[0], v)),
    WITH_SCALAR(pow_scalar, tj::pow(x[0], v)),
    // ternary
    {"where", 3, Pick::broadcast, no_attrs, [](const Operands& x, S) { return tj::where(x[0], x[1], x[2]); }},
    {"clamp", 3, Pick::broadcast, no_attrs, [](const Operands& x, S) { return tj::clamp(x[0], x[1], x[2]); }},
    // reductions
    REDUCE(sum), REDUCE(prod), REDUCE(mean), REDUCE(max), REDUCE(min), REDUCE(any), REDUCE(all),
    {"var", 1, Pick::any, moment_attrs, [](const Operands& x, S s) {
       return x[0].var(axes_of(s), flag(s, "keepdims"), real(s, "correction")); }},
    {"std", 1, Pick::any, moment_attrs, [](const Operands& x, S s) {
       return x[0].std(axes_of(s), flag(s, "keepdims"), real(s, "correction")); }},
    {"logsumexp", 1, Pick::any, reduce_attrs, [](const Operands& x, S s) {
       return tj::logsumexp(x[0], axes_of(s), flag(s, "keepdims")); }},
    {"argmax", 1, Pick::any, arg_reduce_attrs, arg_reduce<&tj::Tensor::argmax, &tj::Tensor::argmax>},
    {"argmin", 1, Pick::any, arg_reduce_attrs, arg_reduce<&tj::Tensor::argmin, &tj::Tensor::argmin>},
    // scans and ordering
    {"cumsum", 1, Pick::any, axis_attrs, [](const Operands& x, S s) { return tj::cumsum(x[0], integer(s, "axis")); }},
    {"sort", 1, Pick::any, order_attrs, [](const Operands& x, S s) {
       return tj::sort(x[0], integer(s, "axis"), flag(s, "descending")); }},
    {"argsort", 1, Pick::any, order_attrs, [](const Operands& x, S s) {
       return tj::argsort(x[0], integer(s, "axis"), flag(s, "descending")); }},
    {"topk_values", 1, Pick::any, topk_attrs, [](const Operands& x, S s) {
       return tj::topk(x[0], integer(s, "k"), integer(s, "axis")).values; }},
    {"topk_indices", 1, Pick::any, topk_attrs, [](const Operands& x, S s) {
       return tj::topk(x[0], integer(s, "k"), integer(s, "axis")).indices; }},
    {"tril", 1, Pick::any, diagonal_attrs, [](const Operands& x, S s) { return tj::tril(x[0], integer(s, "k")); }},
    {"triu", 1, Pick::any, diagonal_attrs, [](const Operands& x, S s) { return tj::triu(x[0], integer(s, "k")); }},
    // indexing (the operands after the first are new inputs: valid indices, and values)
    {"take", 1, Pick::any, index_axis_attrs, [](const Operands& x, S s) { return tj::take(x[0], x[1], integer(s, "axis")); },
     take_fresh, 1},
    {"take_along_axis", 1, Pick::any, index_axis_attrs, [](const Operands& x, S s) {
       return tj::take_along_axis(x[0], x[1], integer(s, "axis")); }, along_fresh, 1},
    {"index_add", 1, Pick::any, index_axis_attrs, [](const Operands& x, S s) {
       return tj::index_add(x[0], integer(s, "axis"), x[1], x[2]); }, index_add_fresh, 2},
    {"scatter_add", 1, Pick::any, index_axis_attrs, [](const Operands& x, S s) {
       return tj::scatter_add(x[0], integer(s, "axis"), x[1], x[2]); }, scatter_fresh, 2},
    {"one_hot", 0, Pick::any, one_hot_attrs, [](const Operands& x, S s) {
       return tj::one_hot(x[0], integer(s, "classes"), parse_dtype(s.attr("dtype"))); }, one_hot_fresh, 1},
    // products and layers
    {"matmul", 2, Pick::matmul, no_attrs, [](const Operands& x, S) { return tj::matmul(x[0], x[1]); }},
    {"softmax", 1, Pick::any, axis_attrs, [](const Operands& x, S s) { return tj::softmax(x[0], integer(s, "axis")); }},
    {"log_softmax", 1, Pick::any, axis_attrs, [](const Operands& x, S s) { return tj::log_softmax(x[0], integer(s, "axis")); }},
    {"layernorm", 3, Pick::broadcast, eps_attrs, [](const Operands& x, S s) { return tj::layernorm(x[0], x[1], x[2], real(s, "eps")); }},
    {"rmsnorm", 2, Pick::broadcast, eps_attrs, [](const Operands& x, S s) { return tj::rmsnorm(x[0], x[1], real(s, "eps")); }},
    {"mse_loss", 2, Pick::broadcast, no_attrs, [](const Operands& x, S) { return tj::mse_loss(x[0], x[1]); }},
    // views and copies
    {"reshape", 1, Pick::any, reshape_attrs, [](const Operands& x, S s) { return x[0].reshape(parse_list(s.attr("shape"))); }},
    {"permute", 1, Pick::any, permute_attrs, [](const Operands& x, S s) { return x[0].permute(parse_list(s.attr("perm"))); }},
    {"transpose", 1, Pick::any, no_attrs, [](const Operands& x, S) { return x[0].transpose(); }},
    {"expand", 1, Pick::any, expand_attrs, [](const Operands& x, S s) { return x[0].expand(parse_list(s.attr("shape"))); }},
    {"slice", 1, Pick::any, slice_attrs, [](const Operands& x, S s) {
       return x[0].slice(integer(s, "axis"), bound_of(s, "start"), bound_of(s, "stop"), integer(s, "step")); }},
    {"flip", 1, Pick::any, axis_attrs, [](const Operands& x, S s) { return x[0].flip(integer(s, "axis")); }},
    {"squeeze", 1, Pick::any, no_attrs, [](const Operands& x, S) { return x[0].squeeze(); }},
    {"unsqueeze", 1, Pick::any, unsqueeze_attrs, [](const Operands& x, S s) { return x[0].unsqueeze(integer(s, "axis")); }},
    {"detach", 1, Pick::any, no_attrs, [](const Operands& x, S) { return x[0].detach(); }},
    {"contiguous", 1, Pick::any, no_attrs, [](const Operands& x, S) { return x[0].contiguous(); }},
    {"copy", 1, Pick::any, no_attrs, [](const Operands& x, S) { return x[0].copy(); }},
    // joining (concat_new's operands after the first are new inputs: other extents, dtypes, layouts)
    {"concat", 2, Pick::join, concat_attrs, [](const Operands& x, S s) { return tj::concat({x[0], x[1]}, integer(s, "axis")); },
     nullptr, 0, concat_misuse},
    {"concat_new", 1, Pick::any, concat_new_attrs, [](const Operands& x, S s) {
       return tj::concat({x[0], x[1], x[2]}, integer(s, "axis")); }, concat_new_fresh, 2, concat_misuse},
    {"stack", 2, Pick::same, stack_attrs, [](const Operands& x, S s) { return tj::stack({x[0], x[1]}, integer(s, "axis")); },
     nullptr, 0, stack_misuse},
    {"split", 1, Pick::any, split_attrs, [](const Operands& x, S s) {
       return tj::split(x[0], parse_list(s.attr("sizes")), integer(s, "axis"))[static_cast<std::size_t>(integer(s, "part"))]; },
     nullptr, 0, split_misuse},
    {"split_concat", 1, Pick::any, split_attrs, split_concat, nullptr, 0, split_misuse},
    {"pad", 1, Pick::any, pad_attrs, [](const Operands& x, S s) { return tj::pad(x[0], widths_of(s), real(s, "value")); },
     nullptr, 0, pad_misuse},
};

}  // namespace

const std::vector<OracleOp>& oracle_ops() { return kOps; }

const std::vector<std::string>& differentiable_ops() {
  static const std::vector<std::string> names = {
      "neg", "abs", "square", "exp", "exp2", "expm1", "tanh", "sigmoid", "sin", "cos", "erf", "gelu", "gelu_tanh",
      "silu", "softplus", "atan", "relu", "add", "sub", "mul", "maximum", "minimum", "atan2", "add_scalar",
      "rsub_scalar", "mul_scalar", "clamp", "sum", "prod", "mean", "max", "min", "var", "std", "logsumexp", "cumsum",
      "sort", "topk_values", "matmul", "softmax", "log_softmax", "layernorm", "rmsnorm", "mse_loss", "reshape",
      "permute", "transpose", "expand", "slice", "flip", "squeeze", "unsqueeze", "copy", "contiguous", "tril", "triu",
      "take", "take_along_axis", "index_add", "scatter_add", "concat", "stack", "split", "split_concat", "pad"};
  return names;
}

const OracleOp& find_op(const std::string& name) {
  for (const OracleOp& op : kOps)
    if (name == op.name) return op;
  throw std::runtime_error("oracle: no op named " + name + " in tests/oracle/oracle_ops.cpp");
}

tj::DType parse_dtype(const std::string& name) {
  for (int i = 0; i < tj::kDTypeCount; ++i)
    if (name == tj::dtype_name(static_cast<tj::DType>(i))) return static_cast<tj::DType>(i);
  throw std::runtime_error("oracle: unknown dtype " + name);
}

std::string dtype_text(tj::DType dtype) { return std::string(tj::dtype_name(dtype)); }

}  // namespace oracle
