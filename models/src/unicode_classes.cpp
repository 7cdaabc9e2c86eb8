#include "models/src/unicode_classes.hpp"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <tensorjit/error.hpp>

namespace tensorjit::models::unicode {

namespace {

// The Unicode version of the `unicode_categories` crate's tables (see the header).
constexpr std::uint8_t kCategoriesMajor = 8;

bool assigned_by_categories_version(char32_t c) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(c), age);
  return age[0] != 0 && age[0] <= kCategoriesMajor;
}

std::int8_t category(char32_t c) { return u_charType(static_cast<UChar32>(c)); }

// Code points of Unicode 8.0 whose general category ICU 72 (Unicode 15) gives differently, as
// punctuation or non-spacing mark in 8.0: found by tests/models, which compares every code point
// with `tokenizers`.
struct Unicode8Category {
  char32_t code_point;
  bool punctuation;
  bool nonspacing_mark;
};
constexpr Unicode8Category kChangedSinceUnicode8[] = {
    {0x166D, true, false},   // CANADIAN SYLLABICS CHI SIGN: Po, later So
    {0x1734, false, true},   // HANUNOO SIGN PAMUDPOD: Mn, later Mc
    {0x1885, false, false},  // MONGOLIAN LETTER ALI GALI BALUDA: Lo, later Mn
    {0x1886, false, false},  // MONGOLIAN LETTER ALI GALI THREE BALUDA: Lo, later Mn
    {0xA9BD, false, false},  // JAVANESE CONSONANT SIGN KERET: Mc, later Mn
    {0x111C9, true, false},  // SHARADA SANDHI MARK: Po, later Mn
};

const Unicode8Category* changed_since_unicode8(char32_t c) {
  for (const Unicode8Category& entry : kChangedSinceUnicode8)
    if (entry.code_point == c) return &entry;
  return nullptr;
}

void check(UErrorCode status, const char* what) {
  if (U_FAILURE(status))
    throw InternalError(std::string("internal error: ICU failed in ") + what + ": " + u_errorName(status));
}

std::u16string to_utf16(const std::u32string& text) {
  std::u16string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x10000) {
      out.push_back(static_cast<char16_t>(c));
    } else {
      out.push_back(static_cast<char16_t>(U16_LEAD(c)));
      out.push_back(static_cast<char16_t>(U16_TRAIL(c)));
    }
  }
  return out;
}

void append_utf16(std::u32string& out, const char16_t* text, std::int32_t length) {
  for (std::int32_t i = 0; i < length;) {
    UChar32 c;
    U16_NEXT(text, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
}

}  // namespace

bool is_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  const std::int8_t kind = category(c);
  return (kind == U_CONTROL_CHAR || kind == U_FORMAT_CHAR || kind == U_PRIVATE_USE_CHAR) &&
         assigned_by_categories_version(c);
}

bool is_whitespace(char32_t c) {
  return c == U'\t' || c == U'\n' || c == U'\r' || u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool is_punctuation(char32_t c) {
  if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  if (const Unicode8Category* changed = changed_since_unicode8(c)) return changed->punctuation;
  switch (category(c)) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return assigned_by_categories_version(c);
    default:
      return false;
  }
}

bool is_nonspacing_mark(char32_t c) {
  if (const Unicode8Category* changed = changed_since_unicode8(c)) return changed->nonspacing_mark;
  return category(c) == U_NON_SPACING_MARK && assigned_by_categories_version(c);
}

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string nfd(const std::u32string& text) {
  // Nothing below U+00C0 has a canonical decomposition: ASCII text skips ICU.
  bool plain = true;
  for (char32_t c : text) plain = plain && c < 0xC0;
  if (plain) return text;
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* normalizer = unorm2_getNFDInstance(&status);
  check(status, "unorm2_getNFDInstance");
  const std::u16string source = to_utf16(text);
  // A canonical decomposition is at most 4 code units per code unit (Unicode's stability bound
  // for NFD is 3 times; 4 leaves room).
  std::u16string result(source.size() * 4 + 4, u'\0');
  const std::int32_t length = unorm2_normalize(normalizer, reinterpret_cast<const UChar*>(source.data()),
                                               static_cast<std::int32_t>(source.size()),
                                               reinterpret_cast<UChar*>(result.data()),
                                               static_cast<std::int32_t>(result.size()), &status);
  check(status, "unorm2_normalize");
  std::u32string out;
  out.reserve(static_cast<std::size_t>(length));
  append_utf16(out, result.data(), length);
  return out;
}

std::u32string lowercase(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x80) {
      out.push_back(c >= U'A' && c <= U'Z' ? c + 32 : c);
      continue;
    }
    // One code point at a time, so no mapping depends on its neighbours (Final_Sigma); the root
    // locale has no language-specific mappings. A full mapping is at most 3 code points.
    const std::u16string source = to_utf16(std::u32string(1, c));
    char16_t lowered[16];
    UErrorCode status = U_ZERO_ERROR;
    const std::int32_t length = u_strToLower(reinterpret_cast<UChar*>(lowered), 16,
                                             reinterpret_cast<const UChar*>(source.data()),
                                             static_cast<std::int32_t>(source.size()), "", &status);
    check(status, "u_strToLower");
    append_utf16(out, lowered, length);
  }
  return out;
}

}  // namespace tensorjit::models::unicode
