// UTF-8 in and out of the code points the tokenizer works on.
#pragma once

#include <string>
#include <string_view>

namespace tensorjit::models::utf8 {

// Each maximal ill-formed subsequence (Unicode's "substitution of maximal subparts", which
// Python's errors="replace" and the WHATWG decoder also follow) becomes one U+FFFD; so do encoded
// surrogates and overlong forms. Never fails.
std::u32string decode(std::string_view text);
// `c` must be a Unicode scalar value (the decoder gives nothing else).
void append(std::string& out, char32_t c);

}  // namespace tensorjit::models::utf8
