// The character classes BERT's normaliser and pre-tokenizer use, as the `tokenizers` library
// (Hugging Face, Rust) defines them, computed with ICU.
//
// `tokenizers` takes its general categories (control, punctuation, non-spacing mark) from the
// `unicode_categories` crate, whose tables are Unicode 8.0: a code point assigned after 8.0 is in
// none of them (not control, not punctuation, not a mark), and code points that are unassigned
// are not "control" either. Lower-casing and whitespace come from Rust's standard library. ICU
// gives the categories of its own (newer) Unicode version; `u_charAge` restores the 8.0 view.
// tests/models checks these classes, code point by code point, against `tokenizers` itself.
#pragma once

#include <string>

namespace tensorjit::models::unicode {

// clean_text removes these: Cc, Cf and Co as of Unicode 8.0, but not tab, newline, return.
bool is_control(char32_t c);
// Rust's char::is_whitespace (the White_Space property), and tab, newline, return.
bool is_whitespace(char32_t c);
// BertPreTokenizer isolates these: ASCII punctuation and symbols (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)
// and the P* categories as of Unicode 8.0.
bool is_punctuation(char32_t c);
// strip_accents removes these after NFD: Mn as of Unicode 8.0.
bool is_nonspacing_mark(char32_t c);
// BERT's "Chinese character" blocks (CJK Unified Ideographs and their extensions, compatibility
// ideographs), which handle_chinese_chars surrounds with spaces.
bool is_chinese_char(char32_t c);

// Canonical decomposition (NFD) of the whole text, with canonical reordering.
std::u32string nfd(const std::u32string& text);
// Each code point replaced by its full lower-case mapping (İ gives i and U+0307), with no context:
// a capital sigma is always σ, as Rust's char::to_lowercase.
std::u32string lowercase(const std::u32string& text);

}  // namespace tensorjit::models::unicode
