#include <tensorjit/models/wordpiece_tokenizer.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include <tensorjit/functions.hpp>

#include "models/src/bert_normalizer.hpp"
#include "models/src/bert_pre_tokenizer.hpp"
#include "models/src/special_tokens.hpp"
#include "models/src/utf8.hpp"
#include "models/src/wordpiece_model.hpp"

namespace tensorjit::models {

struct WordPieceTokenizer::Parts {
  std::vector<SpecialToken> special_tokens;
  BertNormalizer normalizer;
  WordPieceModel model;
  std::vector<std::int32_t> prefix_ids;  // the post-processor's tokens before the text ([CLS])
  std::vector<std::int32_t> suffix_ids;  // and after it ([SEP])
  std::int64_t max_length = std::numeric_limits<std::int64_t>::max();
  std::int32_t pad_id = 0;
};

namespace {

using nlohmann::json;
using Parts = WordPieceTokenizer::Parts;

// Reading the file: each field checked, each refusal naming the file and the field.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("WordPieceTokenizer::from_file: " + path_ + ": " + what);
  }

  const json& field(const json& object, const char* name, const char* where) const {
    if (!object.is_object() || !object.contains(name)) fail(std::string(where) + " has no \"" + name + "\"");
    return object.at(name);
  }
  std::string text(const json& object, const char* name, const char* where) const {
    const json& value = field(object, name, where);
    if (!value.is_string()) fail(std::string(where) + "." + name + " is not a string");
    return value.get<std::string>();
  }
  bool flag(const json& object, const char* name, const char* where, bool absent) const {
    if (!object.contains(name) || object.at(name).is_null()) return absent;
    if (!object.at(name).is_boolean()) fail(std::string(where) + "." + name + " is not true or false");
    return object.at(name).get<bool>();
  }
  std::int64_t integer(const json& value, const std::string& where) const {
    if (!value.is_number_integer()) fail(where + " is not an integer");
    return value.get<std::int64_t>();
  }
  std::int32_t id(const json& value, const std::string& where) const {
    const std::int64_t number = integer(value, where);
    if (number < 0 || number > std::numeric_limits<std::int32_t>::max()) fail(where + " is not a token id");
    return static_cast<std::int32_t>(number);
  }

  void read_normalizer(const json& config, BertNormalizer& normalizer) const {
    const json& n = field(config, "normalizer", "the file");
    if (text(n, "type", "normalizer") != "BertNormalizer")
      fail("normalizer.type is \"" + text(n, "type", "normalizer") + "\"; only BertNormalizer is implemented");
    normalizer.clean_text = flag(n, "clean_text", "normalizer", true);
    normalizer.handle_chinese_chars = flag(n, "handle_chinese_chars", "normalizer", true);
    normalizer.lowercase = flag(n, "lowercase", "normalizer", true);
    normalizer.strip_accents = flag(n, "strip_accents", "normalizer", normalizer.lowercase);
  }

  void read_model(const json& config, WordPieceModel& model) const {
    const json& m = field(config, "model", "the file");
    if (text(m, "type", "model") != "WordPiece")
      fail("model.type is \"" + text(m, "type", "model") + "\"; only WordPiece is implemented");
    const json& vocabulary = field(m, "vocab", "model");
    if (!vocabulary.is_object()) fail("model.vocab is not an object");
    model.vocabulary.reserve(vocabulary.size());
    for (auto entry = vocabulary.begin(); entry != vocabulary.end(); ++entry)
      model.vocabulary.emplace(entry.key(), id(entry.value(), "model.vocab[\"" + entry.key() + "\"]"));
    const std::string unknown = text(m, "unk_token", "model");
    const auto hit = model.vocabulary.find(unknown);
    if (hit == model.vocabulary.end()) fail("model.unk_token \"" + unknown + "\" is not in model.vocab");
    model.unknown_id = hit->second;
    model.continuing_prefix = text(m, "continuing_subword_prefix", "model");
    const std::int64_t max_chars = integer(field(m, "max_input_chars_per_word", "model"), "model.max_input_chars_per_word");
    if (max_chars < 0) fail("model.max_input_chars_per_word is negative");
    model.max_chars_per_word = static_cast<std::size_t>(max_chars);
  }

  void read_special_tokens(const json& config, std::vector<SpecialToken>& tokens) const {
    if (!config.contains("added_tokens")) return;
    const json& added = config.at("added_tokens");
    if (!added.is_array()) fail("added_tokens is not a list");
    for (const json& token : added) {
      const std::string content = text(token, "content", "an added token");
      for (const char* option : {"normalized", "lstrip", "rstrip", "single_word"})
        if (flag(token, option, "added token", false))
          fail("added token \"" + content + "\" sets \"" + option + "\"; only tokens matched in the raw text as written are implemented");
      tokens.push_back({utf8::decode(content), id(field(token, "id", "an added token"), "added token id")});
    }
  }

  // TemplateProcessing's "single" template, or BertProcessing: the ids around the text.
  void read_post_processor(const json& config, Parts& parts) const {
    if (!config.contains("post_processor") || config.at("post_processor").is_null()) return;
    const json& p = config.at("post_processor");
    const std::string type = text(p, "type", "post_processor");
    if (type == "BertProcessing") {
      parts.prefix_ids = {id(field(p, "cls", "post_processor").at(1), "post_processor.cls")};
      parts.suffix_ids = {id(field(p, "sep", "post_processor").at(1), "post_processor.sep")};
      return;
    }
    if (type != "TemplateProcessing") fail("post_processor.type is \"" + type + "\"; only TemplateProcessing and BertProcessing are implemented");
    const json& single = field(p, "single", "post_processor");
    const json& special = field(p, "special_tokens", "post_processor");
    bool seen_text = false;
    for (const json& item : single) {
      if (item.contains("Sequence")) {
        if (seen_text || text(item.at("Sequence"), "id", "post_processor.single") != "A")
          fail("post_processor.single has a sequence other than one \"A\"");
        seen_text = true;
        continue;
      }
      const std::string name = text(field(item, "SpecialToken", "post_processor.single item"), "id", "post_processor.single");
      const json& ids = field(field(special, name.c_str(), "post_processor.special_tokens"), "ids", "post_processor.special_tokens");
      for (const json& value : ids) (seen_text ? parts.suffix_ids : parts.prefix_ids).push_back(id(value, "post_processor ids"));
    }
    if (!seen_text) fail("post_processor.single has no sequence \"A\"");
  }

  void read_truncation(const json& config, Parts& parts) const {
    if (!config.contains("truncation") || config.at("truncation").is_null()) return;
    const json& t = config.at("truncation");
    if (t.contains("direction") && text(t, "direction", "truncation") != "Right")
      fail("truncation.direction is not \"Right\"; only truncation at the right is implemented");
    parts.max_length = integer(field(t, "max_length", "truncation"), "truncation.max_length");
    const auto added = static_cast<std::int64_t>(parts.prefix_ids.size() + parts.suffix_ids.size());
    if (parts.max_length < added) fail("truncation.max_length is shorter than the post-processor's special tokens");
  }

  void read_pad_id(const json& config, Parts& parts) const {
    if (config.contains("padding") && config.at("padding").is_object() && config.at("padding").contains("pad_id")) {
      parts.pad_id = id(config.at("padding").at("pad_id"), "padding.pad_id");
      return;
    }
    if (const auto hit = parts.model.vocabulary.find("[PAD]"); hit != parts.model.vocabulary.end())
      parts.pad_id = hit->second;
  }

  void read_pre_tokenizer(const json& config) const {
    const std::string type = text(field(config, "pre_tokenizer", "the file"), "type", "pre_tokenizer");
    if (type != "BertPreTokenizer") fail("pre_tokenizer.type is \"" + type + "\"; only BertPreTokenizer is implemented");
  }

 private:
  std::string path_;
};

}  // namespace

WordPieceTokenizer WordPieceTokenizer::from_file(const std::string& path) {
  Reader reader(path);
  std::ifstream file(path, std::ios::binary);
  if (!file) reader.fail("cannot be opened (scripts/fetch_minilm.sh fetches all-MiniLM-L6-v2's)");
  // Parsed from memory: nlohmann's stream input reads a character at a time.
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  json config;
  try {
    config = json::parse(text);
  } catch (const json::exception& error) {
    reader.fail(std::string("is not JSON: ") + error.what());
  }
  auto parts = std::make_shared<Parts>();
  try {
    reader.read_special_tokens(config, parts->special_tokens);
    reader.read_normalizer(config, parts->normalizer);
    reader.read_pre_tokenizer(config);
    reader.read_model(config, parts->model);
    reader.read_post_processor(config, *parts);
    reader.read_truncation(config, *parts);
    reader.read_pad_id(config, *parts);
  } catch (const json::exception& error) {
    reader.fail(std::string("has an unexpected structure: ") + error.what());
  }
  return WordPieceTokenizer(std::move(parts));
}

WordPieceTokenizer::WordPieceTokenizer(std::shared_ptr<const Parts> parts) : parts_(std::move(parts)) {}
WordPieceTokenizer::~WordPieceTokenizer() = default;

std::vector<std::int32_t> WordPieceTokenizer::encode(std::string_view text) const {
  std::vector<std::int32_t> ids = parts_->prefix_ids;
  for (const TextSegment& segment : split_special_tokens(utf8::decode(text), parts_->special_tokens)) {
    if (segment.special_id >= 0) {
      ids.push_back(segment.special_id);
      continue;
    }
    for (const std::u32string& word : bert_pre_tokenize(parts_->normalizer.normalize(segment.text)))
      parts_->model.tokenize(word, ids);
  }
  // Truncation keeps room for the suffix ([SEP]); the prefix ([CLS]) is already counted.
  const auto room = parts_->max_length - static_cast<std::int64_t>(parts_->suffix_ids.size());
  if (static_cast<std::int64_t>(ids.size()) > room) ids.resize(static_cast<std::size_t>(room));
  ids.insert(ids.end(), parts_->suffix_ids.begin(), parts_->suffix_ids.end());
  return ids;
}

TokenBatch WordPieceTokenizer::encode_batch(const std::vector<std::string>& texts) const {
  std::vector<std::vector<std::int32_t>> encoded;
  std::size_t longest = 0;
  for (const std::string& text : texts) {
    encoded.push_back(encode(text));
    longest = std::max(longest, encoded.back().size());
  }
  std::vector<std::int64_t> ids(texts.size() * longest, pad_id());
  std::vector<std::int64_t> mask(texts.size() * longest, 0);
  for (std::size_t row = 0; row < encoded.size(); ++row) {
    std::copy(encoded[row].begin(), encoded[row].end(), ids.begin() + static_cast<std::ptrdiff_t>(row * longest));
    std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(row * longest), encoded[row].size(), 1);
  }
  const Shape shape{static_cast<std::int64_t>(texts.size()), static_cast<std::int64_t>(longest)};
  return {tensor<std::int64_t>(shape, ids), tensor<std::int64_t>(shape, mask)};
}

std::int64_t WordPieceTokenizer::max_length() const { return parts_->max_length; }
std::int64_t WordPieceTokenizer::vocabulary_size() const {
  return static_cast<std::int64_t>(parts_->model.vocabulary.size());
}
std::int32_t WordPieceTokenizer::pad_id() const { return parts_->pad_id; }

}  // namespace tensorjit::models
