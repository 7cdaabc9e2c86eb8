// numpy's str() of an array: one format for every element (fixed or scientific, the same number of
// decimals, right-aligned), nested brackets, rows wrapped at 75 columns, and a "..." summary of
// each axis (first and last three) when the tensor has more than 1000 elements.
#include <tensorjit/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <ostream>
#include <unordered_map>

#include <tensorjit/ir/scalar_ops.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {
namespace {

constexpr std::int64_t kSummaryThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr std::size_t kLineWidth = 75;
constexpr int kMaxDecimals = 8;

// numpy's float format ("maxprec", unique): each value is printed with the fewest decimals that
// identify it in its own dtype, at most kMaxDecimals; in fixed notation the decimals are padded on
// the right with spaces to a common count, in scientific notation with zeros.
// The shortest decimal that reads back as v in `dtype` (f16 and bf16: the fewest significant
// digits whose value rounds to v, as numpy prints float16).
std::string shortest_digits(double v, DType dtype) {
  if (dtype == f64) return fmt::format("{}", v);
  if (!is_storage_float(dtype)) return fmt::format("{}", static_cast<float>(v));
  for (int digits = 1;; ++digits) {
    std::string s = fmt::format("{:.{}g}", v, digits);
    if (ir::rounded_to(dtype, std::stod(s)) == v || digits >= 9) return s;
  }
}

std::string fixed_digits(double v, DType dtype) {
  std::string s = dtype != f64 ? fmt::format("{:.{}f}", static_cast<float>(v), kMaxDecimals)
                               : fmt::format("{:.{}f}", v, kMaxDecimals);
  std::string shortest = shortest_digits(v, dtype);
  // The shortest round-trip form wins when it is plain decimal with few enough decimals.
  auto point = shortest.find('.');
  if (shortest.find_first_of("eE") == std::string::npos &&
      (point == std::string::npos || shortest.size() - point - 1 <= kMaxDecimals)) {
    s = shortest;
    if (s.find('.') == std::string::npos) s += '.';
    return s;
  }
  s.erase(s.find_last_not_of('0') + 1);
  return s;
}

int decimals_of(const std::string& fixed) { return static_cast<int>(fixed.size() - fixed.find('.') - 1); }

struct FloatFormat {
  DType dtype = f32;
  bool scientific = false;
  int decimals = 0;
  std::string format(double v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (scientific) {
      std::string s = fmt::format("{:.{}e}", v, decimals);
      auto e = s.find('e');
      std::string mantissa = s.substr(0, e);
      if (decimals == 0) mantissa += '.';
      return mantissa + s.substr(e);
    }
    std::string s = fixed_digits(v, dtype);
    return s + std::string(static_cast<std::size_t>(decimals - decimals_of(s)), ' ');
  }
};

FloatFormat choose_float_format(const std::vector<double>& values, DType dtype) {
  FloatFormat f;
  f.dtype = dtype;
  double max_abs = 0, min_abs = INFINITY;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    max_abs = std::max(max_abs, std::fabs(v));
    if (v != 0) min_abs = std::min(min_abs, std::fabs(v));
  }
  f.scientific = max_abs >= 1e8 || (min_abs < INFINITY && (min_abs < 1e-4 || max_abs / min_abs > 1e3));
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (f.scientific) {
      if (v == 0) continue;
      std::string s = fmt::format("{:.{}e}", v, kMaxDecimals);
      std::string mantissa = s.substr(0, s.find('e'));
      f.decimals = std::max(f.decimals, decimals_of(fixed_digits(std::stod(mantissa), dtype)));
    } else {
      f.decimals = std::max(f.decimals, decimals_of(fixed_digits(v, dtype)));
    }
  }
  return f;
}

// Which indices of an axis of extent n are shown; -1 marks the "..." gap.
std::vector<std::int64_t> shown_indices(std::int64_t n, bool summarize) {
  std::vector<std::int64_t> out;
  if (summarize && n > 2 * kEdgeItems) {
    for (std::int64_t i = 0; i < kEdgeItems; ++i) out.push_back(i);
    out.push_back(-1);
    for (std::int64_t i = n - kEdgeItems; i < n; ++i) out.push_back(i);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out.push_back(i);
  }
  return out;
}

// Where a shown element is: its row-major index (the key of its text) and its place in the buffer.
struct Shown {
  std::int64_t flat;
  std::int64_t element;
};

class Printer {
 public:
  // Reads the shown elements alone, straight from the buffer: a summary shows at most
  // 2 * kEdgeItems per axis, and copying all of a 4 GiB tensor to print them threw bad_alloc.
  explicit Printer(const Tensor& t) : shape_(t.shape()), summarize_(t.size() > kSummaryThreshold) {
    const ir::Value value = detail::value_of(t, "to_string");
    strides_ = ir::contiguous_strides(shape_);
    std::vector<Shown> shown;
    collect(0, 0, value.layout.offset, value.layout.strides, shown);
    const bool floating = is_floating(t.dtype());
    // Format and width come from the shown elements only, as numpy does.
    if (floating) {
      std::vector<double> values;
      for (const auto& s : shown) values.push_back(read<double>(value, s.element));
      format_ = choose_float_format(values, t.dtype());
    }
    for (const auto& s : shown) {
      std::string text = floating             ? format_.format(read<double>(value, s.element))
                         : t.dtype() == boolean ? (read<std::int64_t>(value, s.element) ? "True" : "False")
                                                : fmt::format("{}", read<std::int64_t>(value, s.element));
      width_ = std::max(width_, text.size());
      text_[s.flat] = std::move(text);
    }
  }

  std::string str() const {
    std::string out;
    if (shape_.empty()) return text_.at(0);
    for (auto e : shape_)
      if (e == 0) return "[]";
    print(0, 0, 1, out);
    return out;
  }

 private:
  template <typename T> static T read(const ir::Value& value, std::int64_t element) {
    return visit_dtype(value.dtype, [&](auto tag) {
      using Stored = typename decltype(tag)::type;
      return static_cast<T>(ir::widen(static_cast<const Stored*>(value.buffer->data())[element]));
    });
  }

  void collect(int axis, std::int64_t flat, std::int64_t element, const ir::Strides& buffer_strides,
               std::vector<Shown>& out) {
    if (axis == static_cast<int>(shape_.size())) {
      out.push_back({flat, element});
      return;
    }
    for (auto i : shown_indices(shape_[axis], summarize_))
      if (i >= 0)
        collect(axis + 1, flat + i * strides_[axis], element + i * buffer_strides[axis], buffer_strides, out);
  }

  void print(int axis, std::int64_t base, std::size_t indent, std::string& out) const {
    const int rank = static_cast<int>(shape_.size());
    out += '[';
    if (axis == rank - 1) {
      std::size_t column = indent;
      bool first = true;
      for (auto i : shown_indices(shape_[axis], summarize_)) {
        std::string item = i < 0 ? std::string("...") : pad(text_.at(base + i * strides_[axis]));
        if (!first && column + 1 + item.size() + 1 > kLineWidth) {
          out += '\n' + std::string(indent, ' ');
          column = indent;
        } else if (!first) {
          out += ' ';
          ++column;
        }
        out += item;
        column += item.size();
        first = false;
      }
    } else {
      const std::string separator = std::string(static_cast<std::size_t>(rank - axis - 1), '\n');
      bool first = true;
      for (auto i : shown_indices(shape_[axis], summarize_)) {
        if (!first) out += separator + std::string(indent, ' ');
        if (i < 0) out += "...";
        else print(axis + 1, base + i * strides_[axis], indent + 1, out);
        first = false;
      }
    }
    out += ']';
  }

  std::string pad(const std::string& s) const { return std::string(width_ - s.size(), ' ') + s; }

  Shape shape_;
  ir::Strides strides_;
  bool summarize_;
  FloatFormat format_;
  std::size_t width_ = 0;
  std::unordered_map<std::int64_t, std::string> text_;
};

}  // namespace

std::string Tensor::to_string() const {
  detail::check_defined(*this, "to_string");
  return Printer(*this).str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.to_string(); }

}  // namespace tensorjit
