#include "models/src/wordpiece_model.hpp"

#include "models/src/utf8.hpp"

namespace tensorjit::models {

void WordPieceModel::tokenize(const std::u32string& word, std::vector<std::int32_t>& ids) const {
  if (word.size() > max_chars_per_word) {
    ids.push_back(unknown_id);
    return;
  }
  // The word in UTF-8 and where each code point starts, so that every candidate piece is a
  // substring at code point boundaries.
  std::string bytes;
  std::vector<std::size_t> starts;
  for (char32_t c : word) {
    starts.push_back(bytes.size());
    utf8::append(bytes, c);
  }
  starts.push_back(bytes.size());

  const std::size_t first = ids.size();
  std::string candidate;
  std::size_t start = 0;
  while (start < word.size()) {
    std::size_t end = word.size();
    bool found = false;
    for (; end > start; --end) {
      const std::string_view piece(bytes.data() + starts[start], starts[end] - starts[start]);
      std::string_view key = piece;
      if (start > 0) {
        candidate.assign(continuing_prefix).append(piece);
        key = candidate;
      }
      if (const auto hit = vocabulary.find(key); hit != vocabulary.end()) {
        ids.push_back(hit->second);
        found = true;
        break;
      }
    }
    if (!found) {
      ids.resize(first);
      ids.push_back(unknown_id);
      return;
    }
    start = end;
  }
}

}  // namespace tensorjit::models
