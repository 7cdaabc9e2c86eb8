// The special tokens of tokenizer.json's "added_tokens" ([CLS], [SEP], [PAD], ...): found in the
// raw text before anything else, as `tokenizers` does for tokens with "normalized": false.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tensorjit::models {

struct SpecialToken {
  std::u32string content;
  std::int32_t id = 0;
};

// A piece of the text: a special token (id >= 0, text empty) or text between them (id -1).
struct TextSegment {
  std::int32_t special_id = -1;
  std::u32string text;
};

// Leftmost-longest matches of the tokens' contents (the aho-corasick match kind of `tokenizers`).
std::vector<TextSegment> split_special_tokens(const std::u32string& text, const std::vector<SpecialToken>& tokens);

}  // namespace tensorjit::models
