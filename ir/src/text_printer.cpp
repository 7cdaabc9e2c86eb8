// The text IR printer (format in text.hpp). Its output is what the parser reads back bit for bit:
// floats are printed as the shortest decimal that round-trips, NaNs other than the default quiet
// NaN as their raw bits.
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/indexing.hpp>
#include <tensorjit/ir/text.hpp>

namespace tensorjit::ir {
namespace {

constexpr std::uint64_t kDoubleQuietNan = 0x7ff8000000000000ULL;
constexpr std::uint32_t kFloatQuietNan = 0x7fc00000U;

// `nan`, `-nan`, or `nan(0x<bits>)` with the raw bits of the dtype's width, sign included.
template <typename Bits> std::string format_nan(Bits bits, Bits quiet_nan) {
  constexpr Bits sign = Bits{1} << (sizeof(Bits) * 8 - 1);
  if (bits == quiet_nan) return "nan";
  if (bits == (quiet_nan | sign)) return "-nan";
  return fmt::format("nan(0x{:x})", bits);
}

// The float a double holds when it holds one exactly, NaN payloads included (done on the bits, as
// a hardware conversion would quieten a signalling NaN).
std::optional<std::uint32_t> exact_float_bits(double value) {
  auto bits = std::bit_cast<std::uint64_t>(value);
  if (!std::isnan(value)) {
    float narrowed = static_cast<float>(value);
    if (std::bit_cast<std::uint64_t>(static_cast<double>(narrowed)) != bits) return std::nullopt;
    return std::bit_cast<std::uint32_t>(narrowed);
  }
  constexpr std::uint64_t kLowPayload = (std::uint64_t{1} << 29) - 1;
  if ((bits & kLowPayload) != 0) return std::nullopt;
  auto sign = static_cast<std::uint32_t>(bits >> 63) << 31;
  auto payload = static_cast<std::uint32_t>((bits >> 29) & 0x7fffffU);
  return sign | 0x7f800000U | payload;
}

std::string format_float_value(DType dtype, double value) {
  // f16 and bf16 values are floats (Scalar::of rounds them through f32): printed as f32 is.
  if (dtype == DType::f32 || is_storage_float(dtype)) {
    if (auto float_bits = exact_float_bits(value)) {
      auto narrowed = std::bit_cast<float>(*float_bits);
      if (std::isnan(narrowed)) return format_nan(*float_bits, kFloatQuietNan);
      return fmt::format("{}", narrowed);
    }
    // Not a float: a Scalar not made by Scalar::of, which rounds f32 values. Printed as the
    // double it is; the parser rounds it to f32 as Scalar::of would (the one lossy case).
  }
  if (std::isnan(value)) return format_nan(std::bit_cast<std::uint64_t>(value), kDoubleQuietNan);
  return fmt::format("{}", value);
}

std::string format_scalar(DType dtype, const Scalar& value) {
  if (is_floating(dtype)) return format_float_value(dtype, value.f);
  if (is_bool(dtype)) return value.i != 0 ? "true" : "false";
  return fmt::format("{}", value.i);
}

std::string format_list(const auto& values) { return fmt::format("[{}]", fmt::join(values, ", ")); }

std::string format_type(DType dtype, const Shape& shape) {
  return fmt::format("{}{}", dtype_name(dtype), format_list(shape));
}

// The ` key=value` attributes of one node, in the fixed order text.hpp documents.
std::string format_attributes(const Node& node) {
  struct Formatter {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const InputAttr& a) const {
      return fmt::format(" strides={} offset={}", format_list(a.layout.strides), a.layout.offset);
    }
    std::string operator()(const ConstantAttr& a) const {
      return fmt::format(" value={}", format_scalar(a.dtype, a.value));
    }
    std::string operator()(const IotaAttr& a) const {
      return fmt::format(" start={} step={} strides={} offset={}", format_float_value(DType::f64, a.start),
                         format_float_value(DType::f64, a.step), format_list(a.layout.strides), a.layout.offset);
    }
    std::string operator()(const ShapeAttr& a) const {
      return fmt::format(" shape={}", format_list(a.shape));
    }
    std::string operator()(const PermuteAttr& a) const {
      return fmt::format(" perm={}", format_list(a.perm));
    }
    std::string operator()(const SliceAttr& a) const {
      return fmt::format(" axis={} start={} step={} count={}", a.axis, a.start, a.step, a.count);
    }
    std::string operator()(const CastAttr&) const { return ""; }  // the node's dtype says it
    std::string operator()(const ReduceAttr& a) const {
      return fmt::format(" axes={} keepdims={} mode={}", format_list(a.axes), a.keepdims,
                         a.mode == ReductionMode::strict ? "strict" : "fast");
    }
    std::string operator()(const ScanAttr& a) const { return fmt::format(" axis={}", a.axis); }
    std::string operator()(const SortAttr& a) const {
      return fmt::format(" axis={} descending={} count={}", a.axis, a.descending, a.count);
    }
    std::string operator()(const IndexAttr& a) const {
      return fmt::format(" axis={} index_axes={} origin={}", a.axis, a.index_axes, index_origin_name(a.origin));
    }
    std::string operator()(const ConcatAttr& a) const { return fmt::format(" axis={}", a.axis); }
  };
  return std::visit(Formatter{}, node.attrs());
}

}  // namespace

std::string print(const Graph& graph) {
  for (const auto& output : graph.outputs) TJ_INTERNAL_CHECK(output) << "print: a graph output is null";
  auto order = topological_order(graph);
  std::unordered_map<const Node*, std::size_t> number;
  number.reserve(order.size());
  std::string text = "graph {\n";
  for (const auto& node : order) {
    std::size_t id = number.size();
    number.emplace(node.get(), id);
    fmt::format_to(std::back_inserter(text), "  %{} = {} {}", id, op_name(node->op()),
                   format_type(node->dtype(), node->shape()));
    const char* separator = " ";
    for (const auto& input : node->inputs()) {
      fmt::format_to(std::back_inserter(text), "{}%{}", separator, number.at(input.get()));
      separator = ", ";
    }
    text += format_attributes(*node);
    text += '\n';
  }
  text += "  outputs";
  const char* separator = " ";
  for (const auto& output : graph.outputs) {
    fmt::format_to(std::back_inserter(text), "{}%{}", separator, number.at(output.get()));
    separator = ", ";
  }
  text += "\n}\n";
  return text;
}

}  // namespace tensorjit::ir
