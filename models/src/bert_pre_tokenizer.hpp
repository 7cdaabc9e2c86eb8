// BertPreTokenizer of `tokenizers`: words are split at whitespace (dropped) and at each
// punctuation character (kept, alone).
#pragma once

#include <string>
#include <vector>

namespace tensorjit::models {

std::vector<std::u32string> bert_pre_tokenize(const std::u32string& text);

}  // namespace tensorjit::models
