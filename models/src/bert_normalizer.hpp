// BertNormalizer of `tokenizers`: the four steps in its order, each as the file enables it.
#pragma once

#include <string>

namespace tensorjit::models {

struct BertNormalizer {
  bool clean_text = true;            // drop NUL, U+FFFD and control characters; whitespace to ' '
  bool handle_chinese_chars = true;  // ' ' before and after each CJK ideograph
  bool strip_accents = true;         // NFD, then drop non-spacing marks (the file's null: = lowercase)
  bool lowercase = true;

  std::u32string normalize(std::u32string text) const;
};

}  // namespace tensorjit::models
