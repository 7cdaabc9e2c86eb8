#include "models/src/special_tokens.hpp"

namespace tensorjit::models {

std::vector<TextSegment> split_special_tokens(const std::u32string& text, const std::vector<SpecialToken>& tokens) {
  std::vector<TextSegment> segments;
  std::size_t plain_start = 0;
  std::size_t position = 0;
  while (position < text.size()) {
    const SpecialToken* longest = nullptr;
    for (const SpecialToken& token : tokens) {
      if (token.content.empty() || text.compare(position, token.content.size(), token.content) != 0) continue;
      if (longest == nullptr || token.content.size() > longest->content.size()) longest = &token;
    }
    if (longest == nullptr) {
      ++position;
      continue;
    }
    if (position > plain_start) segments.push_back({-1, text.substr(plain_start, position - plain_start)});
    segments.push_back({longest->id, {}});
    position += longest->content.size();
    plain_start = position;
  }
  if (text.size() > plain_start) segments.push_back({-1, text.substr(plain_start)});
  return segments;
}

}  // namespace tensorjit::models
