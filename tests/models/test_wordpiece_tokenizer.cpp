// The WordPiece tokenizer: each step on a small tokenizer.json written here, then the ids of
// all-MiniLM-L6-v2's tokenizer against the `tokenizers` package on the generated corpus.
#include <doctest/doctest.h>

#include <tensorjit/models/wordpiece_tokenizer.hpp>
#include <tensorjit/tensorjit.hpp>

#include <sstream>

#include "file_test_support.hpp"
#include "minilm_files.hpp"

namespace tj = tensorjit;
namespace tjm = tensorjit::models;
using file_test::TempFolder;

namespace {

// A BERT-style file with a vocabulary of a few pieces; `changes` are spliced in as extra top-level
// fields, replacing the defaults of the same name.
std::string small_tokenizer_json(const std::string& normalizer =
                                     R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                                         "strip_accents": null, "lowercase": true})",
                                 const std::string& truncation = R"({"max_length": 8, "strategy": "LongestFirst", "stride": 0})",
                                 const std::string& added_token_options = R"("normalized": false)") {
  return R"({"version": "1.0", "truncation": )" + truncation + R"(, "padding": null,
  "added_tokens": [{"id": 0, "content": "[PAD]", )" + added_token_options + R"(},
                   {"id": 1, "content": "[UNK]", "normalized": false},
                   {"id": 2, "content": "[CLS]", "normalized": false},
                   {"id": 3, "content": "[SEP]", "normalized": false}],
  "normalizer": )" + normalizer + R"(,
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                       "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 9,
            "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "un": 4, "##aff": 5, "##able": 6,
                      "cafe": 7, "!": 8, "中": 9, "a": 10, "##a": 11, "b": 12, ",": 13, "σ": 14, "i": 15, "+": 16}}})";
}

tjm::WordPieceTokenizer tokenizer_from(const TempFolder& folder, const std::string& json) {
  file_test::write_bytes(folder / "tokenizer.json", json);
  return tjm::WordPieceTokenizer::from_file(folder / "tokenizer.json");
}

using Ids = std::vector<std::int32_t>;

}  // namespace

TEST_CASE("WordPiece: normalise, split, longest pieces, special tokens, truncation") {
  TempFolder folder;
  const auto tokenizer = tokenizer_from(folder, small_tokenizer_json());
  CHECK(tokenizer.encode("") == Ids{2, 3});
  CHECK(tokenizer.encode("unaffable") == Ids{2, 4, 5, 6, 3});
  CHECK(tokenizer.encode("  UNAFFABLE\t") == Ids{2, 4, 5, 6, 3});          // lower-cased, whitespace dropped
  CHECK(tokenizer.encode("Café") == Ids{2, 7, 3});                          // accent stripped
  CHECK(tokenizer.encode("Cafe\xcc\x81") == Ids{2, 7, 3});                  // a combining accent too
  CHECK(tokenizer.encode("b,a!") == Ids{2, 12, 13, 10, 8, 3});              // punctuation stands alone
  CHECK(tokenizer.encode("a+b") == Ids{2, 10, 16, 12, 3});                  // an ASCII symbol is punctuation
  CHECK(tokenizer.encode("a中b") == Ids{2, 10, 9, 12, 3});                  // an ideograph is its own word
  CHECK(tokenizer.encode("unx") == Ids{2, 1, 3});                           // a missing piece: the word is unknown
  CHECK(tokenizer.encode("aaaaaa") == Ids{2, 10, 11, 11, 11, 11, 11, 3});   // pieces
  CHECK(tokenizer.encode("aaaaaaaaaa") == Ids{2, 1, 3});                    // ten characters: over the limit, unknown
  CHECK(tokenizer.encode("Σ") == Ids{2, 14, 3});                            // capital sigma is σ, never ς
  CHECK(tokenizer.encode("\xc4\xb0") == Ids{2, 15, 3});                     // İ: i and a dot, which is stripped
  CHECK(tokenizer.encode("a\x01\xe2\x80\x8b" "a") == Ids{2, 10, 11, 3});   // control and format characters vanish
  // Special tokens are matched in the raw text, as written (case and all), before normalisation.
  CHECK(tokenizer.encode("a[SEP]b") == Ids{2, 10, 3, 12, 3});
  CHECK(tokenizer.encode("[sep]") == Ids{2, 1, 1, 1, 3});
  // Truncation keeps [CLS] and [SEP] within max_length 8.
  CHECK(tokenizer.encode("a b a b a b a b a b") == Ids{2, 10, 12, 10, 12, 10, 12, 3});
  CHECK(tokenizer.max_length() == 8);
}

TEST_CASE("WordPiece: invalid UTF-8 reads as U+FFFD per maximal subpart, which clean_text drops") {
  TempFolder folder;
  const auto tokenizer = tokenizer_from(folder, small_tokenizer_json());
  CHECK(tokenizer.encode("a\xff" "a") == Ids{2, 10, 11, 3});         // the byte vanishes, joining "aa"
  CHECK(tokenizer.encode("a\xe2\x82 b") == Ids{2, 10, 12, 3});       // a truncated sequence does not eat the space
  CHECK(tokenizer.encode("\xed\xa0\x80,") == Ids{2, 13, 3});         // an encoded surrogate
  CHECK(tokenizer.encode("\xc0\xaf" "a") == Ids{2, 10, 3});          // an overlong "/" is not a slash
  CHECK(tokenizer.encode("\xf4\x90\x80\x80" "a") == Ids{2, 10, 3});  // beyond U+10FFFF
}

TEST_CASE("WordPiece: a batch is padded at the right to its longest sentence") {
  TempFolder folder;
  const auto tokenizer = tokenizer_from(folder, small_tokenizer_json());
  const tjm::TokenBatch batch = tokenizer.encode_batch({"a", "unaffable b", ""});
  CHECK(batch.ids.shape() == tj::Shape{3, 6});
  CHECK(batch.ids.dtype() == tj::i64);
  CHECK(batch.ids.to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{2, 10, 3, 0, 0, 0, 2, 4, 5, 6, 12, 3, 2, 3, 0, 0, 0, 0});
  CHECK(batch.attention_mask.to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("WordPiece: the configuration switches of BertNormalizer") {
  TempFolder folder;
  const auto cased = tokenizer_from(folder, small_tokenizer_json(
      R"({"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": false, "lowercase": false})",
      "null"));
  CHECK(cased.encode("UN") == Ids{2, 1, 3});
  CHECK(cased.encode("a中b") == Ids{2, 1, 3});
  CHECK(cased.encode("a\x01") == Ids{2, 1, 3});
  CHECK(cased.encode("café") == Ids{2, 1, 3});
  CHECK(cased.encode("a b a b a b a b a b").size() == 12);  // no truncation
}

TEST_CASE("WordPiece: a file it cannot run exactly is refused, naming the field") {
  TempFolder folder;
  const auto refused = [&](const std::string& json, const std::string& message) {
    file_test::write_bytes(folder / "tokenizer.json", json);
    CHECK_THROWS_WITH_AS(tjm::WordPieceTokenizer::from_file(folder / "tokenizer.json"),
                         doctest::Contains(message.c_str()), tj::Error);
  };
  refused("{", "is not JSON");
  refused(small_tokenizer_json(R"({"type": "NFKC"})"), "normalizer.type is \"NFKC\"");
  refused(small_tokenizer_json(R"({"type": "BertNormalizer"})", R"({"max_length": 1})"),
          "truncation.max_length is shorter");
  refused(small_tokenizer_json(R"({"type": "BertNormalizer"})", "null", R"("normalized": true)"),
          "added token \"[PAD]\" sets \"normalized\"");
  CHECK_THROWS_WITH_AS(tjm::WordPieceTokenizer::from_file(folder / "absent.json"),
                       doctest::Contains("cannot be opened"), tj::Error);
}

TEST_CASE("MiniLM tokenizer: the same ids as the tokenizers package on the corpus") {
  const auto model = model_test::minilm_folder();
  const auto python = model_test::venv_python_with("tokenizers");
  if (!model || !python) {
    MESSAGE("SKIPPED: needs all-MiniLM-L6-v2 (scripts/fetch_minilm.sh) and bench/.venv with tokenizers");
    return;
  }
  TempFolder folder;
  const std::string here = std::string(TENSORJIT_SOURCE_DIR) + "/tests/models/";
  const std::string command = *python + " " + here + "tokenizer_corpus.py " + (folder / "corpus.txt") + " && " +
                              *python + " " + here + "tokenizer_reference.py " + *model + "/tokenizer.json " +
                              (folder / "corpus.txt") + " " + (folder / "ids.txt") + " > " + (folder / "log.txt") + " 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);

  const auto tokenizer = tjm::WordPieceTokenizer::from_file(*model + "/tokenizer.json");
  std::istringstream corpus(file_test::read_bytes(folder / "corpus.txt"));
  std::istringstream reference(file_test::read_bytes(folder / "ids.txt"));
  std::string line;
  std::string expected_line;
  std::size_t lines = 0;
  std::size_t differing = 0;
  while (std::getline(corpus, line)) {
    REQUIRE(std::getline(reference, expected_line));
    std::istringstream numbers(expected_line);
    Ids expected;
    for (std::int32_t id; numbers >> id;) expected.push_back(id);
    const Ids ids = tokenizer.encode(line);
    if (ids != expected) ++differing;
    if (ids != expected && differing <= 5) {
      std::ostringstream shown;
      for (unsigned char byte : line)
        (byte >= 0x20 && byte < 0x7f) ? shown << byte : shown << "\\x" << std::hex << int(byte) << std::dec;
      std::ostringstream got;
      for (std::int32_t id : ids) got << id << ' ';
      FAIL_CHECK("line " << lines + 1 << ": " << shown.str() << "\n  tokenizers: " << expected_line
                         << "\n  tensorjit:  " << got.str());
    }
    ++lines;
  }
  MESSAGE(lines << " lines compared, " << differing << " differ");
  CHECK(lines >= 10000);
  CHECK(differing == 0);
}
