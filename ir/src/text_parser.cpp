// The text IR parser (format in text.hpp). It reads untrusted files: every read is bounds checked,
// every number range checked, and every failure is a tensorjit::Error naming the line and column
// and what was expected there. Nodes are built only through Node::make, whose verdict is final;
// the dtype and shape the text states must then equal what make() inferred.
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/indexing.hpp>
#include <tensorjit/ir/text.hpp>

namespace tensorjit::ir {
namespace {

constexpr std::size_t kMaxListLength = kMaxRank;

bool is_word_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_word_char(char c) { return is_word_start(c) || (c >= '0' && c <= '9'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
// A token (a number, a word) runs until a separator of the format.
bool is_token_char(char c) {
  return !is_space(c) && c != '\n' && c != ',' && c != '[' && c != ']' && c != '=' && c != '#';
}

// One `key=value` of a node line, kept until the op says which keys it takes.
struct Attribute {
  std::string_view key;
  std::size_t key_position = 0;
  std::size_t value_position = 0;
  bool is_list = false;
  std::vector<std::int64_t> list;
  std::string_view token;
  bool used = false;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Graph parse_graph() {
    skip_blank_lines();
    expect_keyword("graph");
    skip_spaces();
    expect_char('{', "'{' after 'graph'");
    expect_end_of_line();
    Graph graph;
    for (;;) {
      skip_blank_lines();
      if (peek() == '%') {
        parse_node_line();
        continue;
      }
      std::size_t start = pos_;
      if (is_word_start(peek()) && read_word() == "outputs") {
        graph.outputs = parse_outputs();
        break;
      }
      fail_at(start, "expected a node line '%<n> = <op> ...' or 'outputs'");
    }
    skip_blank_lines();
    expect_char('}', "'}' closing the graph after the outputs line");
    expect_end_of_line();
    skip_blank_lines();
    if (!at_end()) fail_at(pos_, "expected the end of the file after the graph's closing '}'");
    return graph;
  }

 private:
  // ---- errors ----

  [[noreturn]] void fail_with_message_at(std::size_t position, std::string_view message) const {
    position = std::min(position, text_.size());
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < position; ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    TJ_FAIL() << fmt::format("text IR, line {}, column {}: {}", line, position - line_start + 1,
                             message);
  }

  // "expected X" followed by what the text holds there.
  [[noreturn]] void fail_at(std::size_t position, std::string_view expected) const {
    fail_with_message_at(position, fmt::format("{}, found {}", expected, describe(position)));
  }

  // What the text holds at `position`, quoted, non-printable bytes escaped, at most 24 bytes.
  std::string describe(std::size_t position) const {
    if (position >= text_.size()) return "the end of the file";
    if (text_[position] == '\n') return "the end of the line";
    std::string shown;
    std::size_t end = position;
    while (end < text_.size() && end - position < 24 &&
           (end == position || is_token_char(text_[end]))) {
      ++end;
    }
    for (std::size_t i = position; i < end; ++i) {
      auto byte = static_cast<unsigned char>(text_[i]);
      if (byte >= 0x20 && byte < 0x7f) {
        shown += static_cast<char>(byte);
      } else {
        shown += fmt::format("\\x{:02x}", byte);
      }
    }
    return fmt::format("'{}'", shown);
  }

  // ---- characters ----

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_spaces() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }

  void skip_comment() {
    if (peek() != '#') return;
    while (!at_end() && text_[pos_] != '\n') ++pos_;
  }

  // Blank lines and comment lines, up to the first character of the next line with content.
  void skip_blank_lines() {
    for (;;) {
      skip_spaces();
      skip_comment();
      if (peek() != '\n') return;  // at the end of the file or at the line's first content
      ++pos_;
    }
  }

  void expect_end_of_line() {
    skip_spaces();
    skip_comment();
    if (at_end()) return;
    if (peek() != '\n') fail_at(pos_, "expected the end of the line");
    ++pos_;
  }

  bool at_end_of_line() {
    skip_spaces();
    return at_end() || peek() == '\n' || peek() == '#';
  }

  void expect_char(char c, std::string_view what) {
    if (peek() != c) fail_at(pos_, fmt::format("expected {}", what));
    ++pos_;
  }

  std::string_view read_word() {
    std::size_t start = pos_;
    while (!at_end() && is_word_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  void expect_keyword(std::string_view keyword) {
    std::size_t start = pos_;
    if (!is_word_start(peek()) || read_word() != keyword) {
      fail_at(start, fmt::format("expected '{}'", keyword));
    }
  }

  std::string_view read_token() {
    std::size_t start = pos_;
    while (!at_end() && is_token_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // ---- numbers ----

  template <typename Integer>
  Integer parse_integer(std::string_view token, std::size_t position, std::string_view what) const {
    Integer value{};
    auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || error == std::errc::invalid_argument || end != token.data() + token.size()) {
      fail_at(position, fmt::format("expected {} (a decimal integer)", what));
    }
    if (error == std::errc::result_out_of_range) {
      fail_at(position, fmt::format("{} is out of range ({} to {})", what,
                                    std::numeric_limits<Integer>::min(),
                                    std::numeric_limits<Integer>::max()));
    }
    return value;
  }

  std::int64_t read_integer(std::string_view what) {
    std::size_t start = pos_;
    return parse_integer<std::int64_t>(read_token(), start, what);
  }

  // A floating value of `dtype` as the printer writes it: the shortest decimal, inf, -inf, nan,
  // -nan, or nan(0x<bits>) with the raw bits of the dtype's width. The result is the exact double
  // (an f32 value widened without a hardware conversion, which would quieten a signalling NaN).
  double parse_float(std::string_view token, std::size_t position, DType dtype) const {
    bool is_f32 = dtype == DType::f32 || is_storage_float(dtype);  // f16, bf16: printed as f32
    if (token == "nan" || token == "-nan") {
      double nan = std::numeric_limits<double>::quiet_NaN();
      return token == "nan" ? nan : -nan;
    }
    if (token.starts_with("nan(0x") && token.ends_with(")")) {
      auto digits = token.substr(6, token.size() - 7);
      std::uint64_t bits = 0;
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
      std::size_t max_digits = is_f32 ? 8 : 16;
      if (digits.empty() || digits.size() > max_digits || error != std::errc() ||
          end != digits.data() + digits.size()) {
        fail_at(position, fmt::format("expected nan(0x<hex>) with at most {} hex digits", max_digits));
      }
      if (is_f32) {
        auto float_bits = static_cast<std::uint32_t>(bits);
        if ((float_bits & 0x7f800000U) != 0x7f800000U || (float_bits & 0x7fffffU) == 0) {
          fail_at(position, "expected the bits of an f32 NaN in nan(0x...)");
        }
        std::uint64_t sign = std::uint64_t{float_bits >> 31} << 63;
        std::uint64_t payload = std::uint64_t{float_bits & 0x7fffffU} << 29;
        return std::bit_cast<double>(sign | 0x7ff0000000000000ULL | payload);
      }
      double value = std::bit_cast<double>(bits);
      if (!std::isnan(value)) fail_at(position, "expected the bits of an f64 NaN in nan(0x...)");
      return value;
    }
    if (token.starts_with("nan") || token.starts_with("-nan") || token.starts_with("+")) {
      fail_at(position, "expected a number (nan, -nan and nan(0x<bits>) are the NaN spellings)");
    }
    auto parse = [&](auto value) -> double {
      auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (token.empty() || error == std::errc::invalid_argument ||
          end != token.data() + token.size()) {
        fail_at(position, fmt::format("expected a floating number of {}", dtype_name(dtype)));
      }
      if (error == std::errc::result_out_of_range) {
        fail_at(position, fmt::format("expected a number in the range of {} (too large or too "
                                      "small: write inf, -inf or 0)", dtype_name(dtype)));
      }
      return static_cast<double>(value);
    };
    return is_f32 ? parse(float{}) : parse(double{});
  }

  // ---- pieces of a node line ----

  // `[a, b, ...]` of at most kMaxListLength integers.
  std::vector<std::int64_t> read_list(std::string_view what) {
    expect_char('[', fmt::format("'[' opening {}", what));
    std::vector<std::int64_t> values;
    skip_spaces();
    if (peek() == ']') {
      ++pos_;
      return values;
    }
    for (;;) {
      skip_spaces();
      if (values.size() == kMaxListLength) {
        fail_at(pos_, fmt::format("expected at most {} entries in {}", kMaxListLength, what));
      }
      values.push_back(read_integer(fmt::format("an integer in {}", what)));
      skip_spaces();
      if (peek() == ']') {
        ++pos_;
        return values;
      }
      expect_char(',', fmt::format("',' or ']' in {}", what));
    }
  }

  std::pair<DType, Shape> read_type() {
    std::size_t start = pos_;
    auto name = read_word();
    std::optional<DType> dtype;
    for (DType candidate : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean, DType::f16, DType::bf16}) {
      if (name == dtype_name(candidate)) dtype = candidate;
    }
    if (!dtype) fail_at(start, "expected a dtype (f32, f64, f16, bf16, i32, i64 or bool)");
    std::size_t shape_start = pos_;
    Shape shape = read_list("the shape");
    std::int64_t count = 1;
    for (auto extent : shape) {
      if (extent < 0) fail_at(shape_start, "expected non-negative extents in the shape");
      if (__builtin_mul_overflow(count, extent, &count)) {
        fail_at(shape_start, "expected a shape whose element count fits in int64");
      }
    }
    return {*dtype, std::move(shape)};
  }

  NodePtr read_reference() {
    std::size_t start = pos_;
    expect_char('%', "an operand '%<n>'");
    auto number = parse_integer<std::int64_t>(read_word(), start + 1, "a node number after '%'");
    auto found = defined_.find(number);
    if (found == defined_.end()) {
      fail_at(start, fmt::format("expected a node defined on an earlier line (%{} is not)", number));
    }
    return found->second;
  }

  std::vector<NodePtr> read_operands(Op op) {
    if (info(op).arity < 0) return read_operand_list(op);
    int arity = info(op).arity;
    std::vector<NodePtr> operands;
    skip_spaces();
    for (int i = 0; i < arity; ++i) {
      if (i > 0) {
        skip_spaces();
        expect_char(',', fmt::format("',' and operand {} of {} ({} takes {} operands)", i + 1,
                                     arity, op_name(op), arity));
        skip_spaces();
      }
      if (peek() != '%') {
        fail_at(pos_, fmt::format("expected operand {} of {} ('%<n>'; {} takes {} operands)", i + 1,
                                  arity, op_name(op), arity));
      }
      operands.push_back(read_reference());
    }
    skip_spaces();
    if (peek() == '%' || peek() == ',') {
      fail_at(pos_, fmt::format("expected no more operands ({} takes {})", op_name(op), arity));
    }
    return operands;
  }

  // A variadic op's operands: one or more, comma-separated.
  std::vector<NodePtr> read_operand_list(Op op) {
    std::vector<NodePtr> operands;
    skip_spaces();
    while (true) {
      if (peek() != '%') {
        fail_at(pos_, fmt::format("expected operand {} of {} ('%<n>'; {} takes one or more operands)",
                                  operands.size() + 1, op_name(op), op_name(op)));
      }
      operands.push_back(read_reference());
      skip_spaces();
      if (peek() != ',') break;
      expect_char(',', "','");
      skip_spaces();
    }
    if (peek() == '%') fail_at(pos_, fmt::format("expected ',' between the operands of {}", op_name(op)));
    return operands;
  }

  std::vector<Attribute> read_attributes() {
    std::vector<Attribute> attributes;
    while (!at_end_of_line()) {
      Attribute attribute;
      attribute.key_position = pos_;
      if (!is_word_start(peek())) fail_at(pos_, "expected an attribute 'key=value'");
      attribute.key = read_word();
      for (const auto& other : attributes) {
        if (other.key == attribute.key) {
          fail_at(attribute.key_position,
                  fmt::format("expected each attribute once ('{}' is repeated)", attribute.key));
        }
      }
      expect_char('=', fmt::format("'=' after the attribute name '{}'", attribute.key));
      attribute.value_position = pos_;
      if (peek() == '[') {
        attribute.is_list = true;
        attribute.list = read_list(fmt::format("attribute '{}'", attribute.key));
      } else {
        attribute.token = read_token();
        if (attribute.token.empty()) {
          fail_at(pos_, fmt::format("expected a value for attribute '{}'", attribute.key));
        }
      }
      attributes.push_back(std::move(attribute));
    }
    return attributes;
  }

  // ---- node lines ----

  // Hands out the attributes an op takes and reports a missing, malformed or unknown one.
  class AttributeReader {
   public:
    AttributeReader(const Parser& parser, std::vector<Attribute> attributes, Op op,
                    std::size_t line_end)
        : parser_(parser), attributes_(std::move(attributes)), op_(op), line_end_(line_end) {}

    const std::vector<std::int64_t>& list(std::string_view key) {
      auto& attribute = find(key);
      if (!attribute.is_list) {
        parser_.fail_at(attribute.value_position,
                        fmt::format("expected a list '[...]' for attribute '{}'", key));
      }
      return attribute.list;
    }
    std::size_t position(std::string_view key) { return find(key).value_position; }
    std::vector<int> small_list(std::string_view key) {
      std::vector<int> values;
      for (auto value : list(key)) {
        if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
          parser_.fail_at(find(key).value_position,
                          fmt::format("expected values that fit in int in attribute '{}'", key));
        }
        values.push_back(static_cast<int>(value));
      }
      return values;
    }
    std::pair<std::string_view, std::size_t> token(std::string_view key) {
      auto& attribute = find(key);
      if (attribute.is_list) {
        parser_.fail_at(attribute.value_position,
                        fmt::format("expected a single value, not a list, for attribute '{}'", key));
      }
      return {attribute.token, attribute.value_position};
    }
    template <typename Integer> Integer integer(std::string_view key) {
      auto [text, position] = token(key);
      return parser_.parse_integer<Integer>(text, position, fmt::format("attribute '{}'", key));
    }
    bool boolean(std::string_view key) {
      auto [text, position] = token(key);
      if (text != "true" && text != "false") {
        parser_.fail_at(position, fmt::format("expected true or false for attribute '{}'", key));
      }
      return text == "true";
    }
    // Every attribute given was one the op takes.
    void finish() const {
      for (const auto& attribute : attributes_) {
        if (!attribute.used) {
          parser_.fail_at(attribute.key_position,
                          fmt::format("expected only the attributes {} takes ('{}' is not one)",
                                      op_name(op_), attribute.key));
        }
      }
    }

   private:
    Attribute& find(std::string_view key) {
      for (auto& attribute : attributes_) {
        if (attribute.key == key) {
          attribute.used = true;
          return attribute;
        }
      }
      parser_.fail_at(line_end_, fmt::format("expected attribute '{}=' ({} needs it)", key,
                                             op_name(op_)));
    }

    const Parser& parser_;
    std::vector<Attribute> attributes_;
    Op op_;
    std::size_t line_end_;
  };

  Scalar read_constant_value(AttributeReader& reader, DType dtype) {
    auto [token, position] = reader.token("value");
    Scalar value;
    if (is_floating(dtype)) {
      value.f = parse_float(token, position, dtype);
    } else if (is_bool(dtype)) {
      if (token != "true" && token != "false") fail_at(position, "expected true or false for a bool value");
      value.i = token == "true" ? 1 : 0;
    } else if (dtype == DType::i32) {
      value.i = parse_integer<std::int32_t>(token, position, "an i32 value");
    } else {
      value.i = parse_integer<std::int64_t>(token, position, "an i64 value");
    }
    return value;
  }

  // Checks the layout's reach fits in int64 before make() or verify() do arithmetic on it.
  void check_layout_range(const Layout& layout, std::size_t position) const {
    constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
    if (layout.offset == kLowest) fail_at(position, "expected an offset above the int64 minimum");
    std::int64_t reach = layout.offset < 0 ? -layout.offset : layout.offset;
    for (std::size_t axis = 0; axis < layout.shape.size(); ++axis) {
      std::int64_t step = 0;
      std::int64_t stride = layout.strides[axis];
      if (stride == kLowest ||
          __builtin_mul_overflow(layout.shape[axis], stride < 0 ? -stride : stride, &step) ||
          __builtin_add_overflow(reach, step, &reach)) {
        fail_at(position, "expected strides and offset whose addresses fit in int64");
      }
    }
  }

  Layout read_layout(const Shape& shape, AttributeReader& reader, std::size_t type_position) {
    Layout layout{shape, {}, 0};
    auto strides_position = reader.position("strides");
    layout.strides = reader.list("strides");
    layout.offset = reader.integer<std::int64_t>("offset");
    if (layout.strides.size() != shape.size()) {
      fail_at(strides_position, fmt::format("expected {} strides, one per axis of the shape", shape.size()));
    }
    check_layout_range(layout, type_position);
    return layout;
  }

  IotaAttr read_iota(DType dtype, const Shape& shape, AttributeReader& reader,
                     std::size_t type_position) {
    auto [start, start_position] = reader.token("start");
    auto [step, step_position] = reader.token("step");
    const double start_value = parse_float(start, start_position, DType::f64);
    const double step_value = parse_float(step, step_position, DType::f64);
    return IotaAttr{dtype, read_layout(shape, reader, type_position), start_value, step_value};
  }

  Attrs read_node_attributes(Op op, DType dtype, const Shape& shape, AttributeReader& reader,
                             std::size_t type_position) {
    switch (category(op)) {
      case OpCategory::source:
        if (op == Op::input) {
          return InputAttr{nullptr, dtype, read_layout(shape, reader, type_position), next_input_id()};
        }
        if (op == Op::constant) return ConstantAttr{dtype, shape, read_constant_value(reader, dtype)};
        return read_iota(dtype, shape, reader, type_position);
      case OpCategory::movement:
        switch (op) {
          case Op::permute: return PermuteAttr{reader.small_list("perm")};
          case Op::slice:
            return SliceAttr{reader.integer<int>("axis"), reader.integer<std::int64_t>("start"),
                             reader.integer<std::int64_t>("step"),
                             reader.integer<std::int64_t>("count")};
          default: return ShapeAttr{reader.list("shape")};  // reshape and expand
        }
      case OpCategory::reduce: {
        ReduceAttr reduce{reader.small_list("axes"), reader.boolean("keepdims"),
                          ReductionMode::strict};
        auto [mode, mode_position] = reader.token("mode");
        if (mode != "strict" && mode != "fast") fail_at(mode_position, "expected mode=strict or mode=fast");
        reduce.mode = mode == "strict" ? ReductionMode::strict : ReductionMode::fast;
        return reduce;
      }
      case OpCategory::scan: return ScanAttr{reader.integer<int>("axis")};
      case OpCategory::order:
        return SortAttr{reader.integer<int>("axis"), reader.boolean("descending"),
                        reader.integer<std::int64_t>("count")};
      case OpCategory::join: return ConcatAttr{reader.integer<int>("axis")};
      case OpCategory::indexing: {
        IndexAttr index{reader.integer<int>("axis"), reader.integer<int>("index_axes"), IndexOrigin::take};
        auto [origin, origin_position] = reader.token("origin");
        auto parsed = index_origin_from_name(origin);
        if (!parsed) fail_at(origin_position, "expected origin=take, take_along_axis, one_hot, index_add or scatter_add");
        index.origin = *parsed;
        return index;
      }
      default:
        if (op == Op::cast) return CastAttr{dtype};
        return std::monostate{};
    }
  }

  void parse_node_line() {
    std::size_t line_start = pos_;
    expect_char('%', "'%<n>'");
    auto number = parse_integer<std::int64_t>(read_word(), line_start + 1, "a node number after '%'");
    if (number < 0) fail_at(line_start, "expected a non-negative node number");
    if (defined_.contains(number)) {
      fail_at(line_start, fmt::format("expected a new node number (%{} is already defined)", number));
    }
    skip_spaces();
    expect_char('=', "'=' after the node number");
    skip_spaces();
    std::size_t op_position = pos_;
    auto name = read_word();
    auto op = op_from_name(name);
    if (!op) fail_at(op_position, "expected an op name of ops.def");
    skip_spaces();
    std::size_t type_position = pos_;
    auto [dtype, shape] = read_type();
    auto operands = read_operands(*op);
    auto attributes = read_attributes();
    AttributeReader reader(*this, std::move(attributes), *op, pos_);
    Attrs attrs = read_node_attributes(*op, dtype, shape, reader, type_position);
    reader.finish();
    expect_end_of_line();

    NodePtr node;
    try {
      node = Node::make(*op, std::move(operands), std::move(attrs));
    } catch (const Error& error) {
      fail_with_message_at(op_position, fmt::format("this node is not valid: {}", error.what()));
    }
    if (node->dtype() != dtype || node->shape() != shape) {
      fail_with_message_at(
          type_position,
          fmt::format("the line says {}[{}] but {} gives {}[{}]: write the type the op gives",
                      dtype_name(dtype), fmt::join(shape, ", "), op_name(*op),
                      dtype_name(node->dtype()), fmt::join(node->shape(), ", ")));
    }
    defined_.emplace(number, std::move(node));
  }

  std::vector<NodePtr> parse_outputs() {
    std::vector<NodePtr> outputs;
    skip_spaces();
    if (at_end_of_line()) {
      expect_end_of_line();
      return outputs;
    }
    for (;;) {
      skip_spaces();
      outputs.push_back(read_reference());
      if (at_end_of_line()) break;
      expect_char(',', "',' between outputs");
    }
    expect_end_of_line();
    return outputs;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::unordered_map<std::int64_t, NodePtr> defined_;
};

}  // namespace

Graph parse(std::string_view text) { return Parser(text).parse_graph(); }

}  // namespace tensorjit::ir
