#include "models/src/bert_pre_tokenizer.hpp"

#include "models/src/unicode_classes.hpp"

namespace tensorjit::models {

std::vector<std::u32string> bert_pre_tokenize(const std::u32string& text) {
  std::vector<std::u32string> words;
  std::u32string word;
  const auto finish_word = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char32_t c : text) {
    if (unicode::is_whitespace(c)) {
      finish_word();
    } else if (unicode::is_punctuation(c)) {
      finish_word();
      words.emplace_back(1, c);
    } else {
      word.push_back(c);
    }
  }
  finish_word();
  return words;
}

}  // namespace tensorjit::models
