// BERT's WordPiece tokenizer, read from a Hugging Face `tokenizer.json`: text in, token ids out,
// the same ids as the `tokenizers` library (docs/models.md).
//
// The pipeline is the one the file configures, step for step as `tokenizers` runs it:
//   1. special tokens (the file's "added_tokens", such as "[CLS]" or "[PAD]") written in the text
//      are found first, in the raw text, and become their ids;
//   2. the rest is normalised (BertNormalizer: clean_text removes control characters and maps
//      whitespace to a space, handle_chinese_chars surrounds each CJK ideograph with spaces,
//      strip_accents decomposes (NFD) and drops non-spacing marks, lowercase);
//   3. split into words (BertPreTokenizer: on whitespace, each punctuation character alone);
//   4. each word becomes the longest vocabulary entries from its left, the pieces after the first
//      prefixed with "##"; a word with a piece not in the vocabulary, or of more than
//      max_input_chars_per_word characters, is the one unknown token;
//   5. truncated to the file's max_length (counting [CLS] and [SEP]), then [CLS] ... [SEP].
//
// Text is UTF-8. Invalid UTF-8 is read as Python's bytes.decode("utf-8", errors="replace") reads
// it: each maximal ill-formed subsequence is one U+FFFD, which clean_text removes (so the bytes
// vanish, joining what surrounds them). Encoding is thread safe (the tokenizer is immutable).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit::models {

// Token ids of a batch, padded at the right to its longest sequence.
struct TokenBatch {
  Tensor ids;             // i64 [sentences, longest]: the padding is the pad token's id
  Tensor attention_mask;  // i64 [sentences, longest]: 1 for a token, 0 for padding
};

class WordPieceTokenizer {
 public:
  // Reads `tokenizer.json`. Throws tensorjit::Error naming the file and the field when the file is
  // unreadable, is not JSON, or configures a step other than those above (this class does not
  // pretend to run a configuration it does not implement).
  static WordPieceTokenizer from_file(const std::string& path);

  // [CLS] ids... [SEP], truncated to max_length().
  std::vector<std::int32_t> encode(std::string_view text) const;
  // Each text encoded, padded at the right with the pad token to the longest of the batch.
  TokenBatch encode_batch(const std::vector<std::string>& texts) const;

  // The longest sequence encode() returns, [CLS] and [SEP] included (the file's truncation).
  std::int64_t max_length() const;
  std::int64_t vocabulary_size() const;
  std::int32_t pad_id() const;

  WordPieceTokenizer(const WordPieceTokenizer&) = default;
  WordPieceTokenizer& operator=(const WordPieceTokenizer&) = default;
  ~WordPieceTokenizer();

  struct Parts;

 private:
  explicit WordPieceTokenizer(std::shared_ptr<const Parts> parts);
  std::shared_ptr<const Parts> parts_;
};

}  // namespace tensorjit::models
