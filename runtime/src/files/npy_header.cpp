#include "runtime/src/files/npy_header.hpp"

#include <cctype>
#include <optional>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::files {
namespace {

constexpr std::size_t kAlignment = 64;  // numpy's ARRAY_ALIGN

// A recursive-descent reader of the few Python literals a header holds: strings, True/False and
// tuples of integers.
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  NpyHeader read() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!consume('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        header.descr = descr();
        seen_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = boolean();
        seen_order = true;
      } else if (key == "shape") {
        header.shape = tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    TJ_CHECK(seen_descr && seen_order && seen_shape)
        << where_ << ": the .npy header lacks 'descr', 'fortran_order' or 'shape': " << text_;
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    TJ_FAIL() << where_ << ": malformed .npy header (" << what << " at character " << pos_ << "): " << text_;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  bool consume_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  std::string string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a string");
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  std::string descr() {
    skip_space();
    // A list is a structured dtype (named fields), which has no tensor equivalent.
    TJ_CHECK(pos_ >= text_.size() || text_[pos_] != '[')
        << where_ << ": structured dtypes (records with named fields) are not supported; save each "
        << "field as an array of its own";
    return string_literal();
  }
  bool boolean() {
    if (consume_word("True")) return true;
    if (consume_word("False")) return false;
    fail("expected True or False");
  }
  std::int64_t integer() {
    skip_space();
    const std::size_t start = pos_;
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[pos_] - '0', &value))
        fail("an extent overflows int64");
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer");
    consume('L');  // Python 2's long literal, in files written by old numpy versions
    return value;
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    while (!consume(')')) {
      shape.push_back(integer());
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

std::string python_tuple(const Shape& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string little_endian(std::uint32_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

}  // namespace

NpyHeader parse_npy_header(std::string_view text, const std::string& where) {
  return HeaderReader(text, where).read();
}

std::string npy_preamble(std::string_view descr, const Shape& shape) {
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " +
                     python_tuple(shape) + ", }";
  // Version 1.0 stores the header's length in 2 bytes, 2.0 (for headers of 64 KiB and more) in 4.
  auto padded_size = [&](std::size_t prefix) {
    return (prefix + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;  // + the newline
  };
  const int version = padded_size(10) - 10 <= 0xffff ? 1 : 2;
  const std::size_t prefix = version == 1 ? 10 : 12;
  const std::size_t padded = padded_size(prefix);
  std::string preamble = "\x93NUMPY";
  preamble += static_cast<char>(version);
  preamble += '\0';
  preamble += little_endian(static_cast<std::uint32_t>(padded - prefix), version == 1 ? 2 : 4);
  preamble += dict;
  preamble += std::string(padded - prefix - dict.size() - 1, ' ') + "\n";
  return preamble;
}

}  // namespace tensorjit::files
