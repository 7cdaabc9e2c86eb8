// BertConfig::from_file: the fields of config.json the encoder reads, each checked, each refusal
// naming the file and the field.
#include <tensorjit/models/bert.hpp>

#include <cmath>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

namespace tensorjit::models {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("BertConfig::from_file: " + path + ": " + what);
}

std::int64_t positive(const json& config, const char* name, const std::string& path) {
  if (!config.contains(name)) fail(path, std::string("has no \"") + name + "\"");
  const json& value = config.at(name);
  // 1 << 24 bounds every extent far above any BERT's, so that products of them cannot overflow.
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > (1 << 24))
    fail(path, std::string("\"") + name + "\" is not an integer in [1, 2^24]");
  return value.get<std::int64_t>();
}

// A field that, when present, must have the one value the encoder implements.
void require(const json& config, const char* name, const std::string& expected, const std::string& path) {
  if (!config.contains(name)) return;
  if (!config.at(name).is_string() || config.at(name).get<std::string>() != expected)
    fail(path, std::string("\"") + name + "\" is " + config.at(name).dump() + "; only \"" + expected +
                   "\" is implemented");
}

}  // namespace

BertConfig BertConfig::from_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(path, "cannot be opened (scripts/fetch_minilm.sh fetches all-MiniLM-L6-v2's)");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  json config;
  try {
    config = json::parse(text);
  } catch (const json::exception& error) {
    fail(path, std::string("is not JSON: ") + error.what());
  }
  if (!config.is_object()) fail(path, "is not a JSON object");
  require(config, "hidden_act", "gelu", path);  // transformers' "gelu" is the erf form
  require(config, "position_embedding_type", "absolute", path);
  BertConfig c;
  c.vocab_size = positive(config, "vocab_size", path);
  c.hidden_size = positive(config, "hidden_size", path);
  c.num_attention_heads = positive(config, "num_attention_heads", path);
  c.num_hidden_layers = positive(config, "num_hidden_layers", path);
  c.intermediate_size = positive(config, "intermediate_size", path);
  c.max_position_embeddings = positive(config, "max_position_embeddings", path);
  c.type_vocab_size = positive(config, "type_vocab_size", path);
  if (c.hidden_size % c.num_attention_heads != 0)
    fail(path, "\"hidden_size\" " + std::to_string(c.hidden_size) + " is not a multiple of \"num_attention_heads\" " +
                   std::to_string(c.num_attention_heads));
  if (config.contains("layer_norm_eps")) {
    const json& eps = config.at("layer_norm_eps");
    if (!eps.is_number() || !std::isfinite(eps.get<double>()) || eps.get<double>() < 0)
      fail(path, "\"layer_norm_eps\" is not a finite number >= 0");
    c.layer_norm_eps = eps.get<double>();
  }
  return c;
}

}  // namespace tensorjit::models
