#include "models/src/bert_normalizer.hpp"

#include "models/src/unicode_classes.hpp"

namespace tensorjit::models {

std::u32string BertNormalizer::normalize(std::u32string text) const {
  if (clean_text) {
    std::u32string kept;
    kept.reserve(text.size());
    for (char32_t c : text) {
      if (c == 0 || c == 0xFFFD || unicode::is_control(c)) continue;
      kept.push_back(unicode::is_whitespace(c) ? U' ' : c);
    }
    text = std::move(kept);
  }
  if (handle_chinese_chars) {
    std::u32string spaced;
    spaced.reserve(text.size());
    for (char32_t c : text) {
      if (unicode::is_chinese_char(c)) {
        spaced += U' ';
        spaced += c;
        spaced += U' ';
      } else {
        spaced += c;
      }
    }
    text = std::move(spaced);
  }
  if (strip_accents) {
    std::u32string stripped;
    for (char32_t c : unicode::nfd(text))
      if (!unicode::is_nonspacing_mark(c)) stripped.push_back(c);
    text = std::move(stripped);
  }
  if (lowercase) text = unicode::lowercase(text);
  return text;
}

}  // namespace tensorjit::models
