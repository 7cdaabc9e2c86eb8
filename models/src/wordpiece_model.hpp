// The WordPiece model of `tokenizers`: a word becomes the longest vocabulary entries from its
// left, each piece after the first looked up with the continuing-subword prefix ("##").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tensorjit::models {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

struct WordPieceModel {
  std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> vocabulary;
  std::int32_t unknown_id = 0;
  std::string continuing_prefix = "##";
  std::size_t max_chars_per_word = 100;

  // Appends the ids of `word` (no whitespace, not empty) to `ids`: its pieces, or the unknown id
  // alone when it has more than max_chars_per_word code points or a piece is not in the vocabulary.
  void tokenize(const std::u32string& word, std::vector<std::int32_t>& ids) const;
};

}  // namespace tensorjit::models
