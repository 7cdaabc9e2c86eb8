// The BERT layers of models/: pooling and normalisation on values worked out by hand, a small
// random BERT whose padded batch gives each sentence its own embedding, the errors of config.json
// and of the checkpoint, and all-MiniLM-L6-v2 against PyTorch's embeddings of the stored sentences.
#include <doctest/doctest.h>

#include <tensorjit/models/bert.hpp>
#include <tensorjit/models/wordpiece_tokenizer.hpp>
#include <tensorjit/tensorjit.hpp>

#include <cmath>
#include <fstream>

#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/text.hpp>

#include "file_test_support.hpp"
#include "minilm_files.hpp"

namespace tj = tensorjit;
namespace tjm = tensorjit::models;
namespace ir = tensorjit::ir;
using file_test::TempFolder;

namespace {

const char* const kSmallConfig = R"({"vocab_size": 40, "hidden_size": 8, "num_attention_heads": 2,
  "num_hidden_layers": 2, "intermediate_size": 16, "max_position_embeddings": 12, "type_vocab_size": 2,
  "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute"})";

// A checkpoint of `config`'s shapes with random values, named as BertModel names them.
std::map<std::string, tj::Tensor> random_checkpoint(const tjm::BertConfig& c, std::uint64_t seed) {
  std::map<std::string, tj::Tensor> t;
  auto keys = tj::split(tj::key(seed), 200);
  std::size_t next = 0;
  auto add = [&](const std::string& name, const tj::Shape& shape, float scale) {
    t[name] = (tj::uniform(keys[next++], shape, -scale, scale)).eval();
  };
  const std::int64_t h = c.hidden_size, f = c.intermediate_size;
  add("embeddings.word_embeddings.weight", {c.vocab_size, h}, 1);
  add("embeddings.position_embeddings.weight", {c.max_position_embeddings, h}, 1);
  add("embeddings.token_type_embeddings.weight", {c.type_vocab_size, h}, 1);
  auto add_norm = [&](const std::string& prefix) {
    add(prefix + ".weight", {h}, 1);
    add(prefix + ".bias", {h}, 0.1f);
  };
  auto add_linear = [&](const std::string& prefix, std::int64_t out, std::int64_t in) {
    add(prefix + ".weight", {out, in}, 0.5f);
    add(prefix + ".bias", {out}, 0.1f);
  };
  add_norm("embeddings.LayerNorm");
  for (std::int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    for (const char* name : {"attention.self.query", "attention.self.key", "attention.self.value",
                             "attention.output.dense"})
      add_linear(p + name, h, h);
    add_norm(p + "attention.output.LayerNorm");
    add_linear(p + "intermediate.dense", f, h);
    add_linear(p + "output.dense", h, f);
    add_norm(p + "output.LayerNorm");
  }
  return t;
}

tjm::BertConfig small_config(const TempFolder& folder) {
  file_test::write_bytes(folder / "config.json", kSmallConfig);
  return tjm::BertConfig::from_file(folder / "config.json");
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(double(a[i]) - double(b[i])));
  return largest;
}

}  // namespace

TEST_CASE("BERT layers: mean pooling over the mask, then L2 normalisation") {
  // Two sentences of three tokens, the second padded after its first token.
  const tj::Tensor x = tj::tensor<float>({2, 3, 2}, {1, 2, 3, 4, 5, 6, /**/ 3, -4, 100, 100, 100, 100});
  const tj::Tensor mask = tj::tensor<std::int64_t>({2, 3}, {1, 1, 1, 1, 0, 0});
  const tj::Tensor pooled = tjm::mean_pooling(x, mask);
  CHECK(pooled.to_vector<float>() == std::vector<float>{3, 4, 3, -4});
  CHECK(tjm::l2_normalize(pooled).to_vector<float>() == std::vector<float>{0.6f, 0.8f, 0.6f, -0.8f});
  // A zero vector stays zero (divided by eps, not by its norm 0).
  CHECK(tjm::l2_normalize(tj::zeros({1, 3})).to_vector<float>() == std::vector<float>{0, 0, 0});
}

TEST_CASE("BERT layers: a padded batch gives each sentence the embedding it has alone") {
  TempFolder folder;
  const tjm::BertConfig config = small_config(folder);
  const tjm::BertEncoder encoder(config, tjm::BertWeights::from_tensors(random_checkpoint(config, 7), config));
  const tj::Tensor short_ids = tj::tensor<std::int64_t>({1, 4}, {1, 17, 23, 2});
  const tj::Tensor long_ids = tj::tensor<std::int64_t>({1, 7}, {1, 5, 6, 7, 8, 39, 2});
  const tj::Tensor batch_ids = tj::tensor<std::int64_t>({2, 7}, {1, 17, 23, 2, 0, 0, 0, /**/ 1, 5, 6, 7, 8, 39, 2});
  const tj::Tensor batch_mask = tj::tensor<std::int64_t>({2, 7}, {1, 1, 1, 1, 0, 0, 0, /**/ 1, 1, 1, 1, 1, 1, 1});

  const tj::Tensor alone_short = encoder.embed(short_ids, tj::ones({1, 4}, tj::i64));
  const tj::Tensor alone_long = encoder.embed(long_ids, tj::ones({1, 7}, tj::i64));
  const tj::Tensor together = encoder.embed(batch_ids, batch_mask);
  REQUIRE(together.shape() == tj::Shape{2, 8});
  CHECK(max_abs_difference(together.slice(0, 0, 1).to_vector<float>(), alone_short.to_vector<float>()) < 1e-6);
  CHECK(max_abs_difference(together.slice(0, 1, 2).to_vector<float>(), alone_long.to_vector<float>()) < 1e-6);
  // Each embedding has norm 1; the two sentences differ.
  for (const tj::Tensor& e : {alone_short, alone_long})
    CHECK(std::abs((e * e).sum().item<float>() - 1.0f) < 1e-6f);
  CHECK(max_abs_difference(alone_short.to_vector<float>(), alone_long.to_vector<float>()) > 1e-2);
}

TEST_CASE("BERT layers: the heads are views, and attention fuses around its two products") {
  TempFolder folder;
  const tjm::BertConfig config = small_config(folder);
  const tjm::BertWeights weights = tjm::BertWeights::from_tensors(random_checkpoint(config, 3), config);
  const tj::Tensor x = tj::uniform(tj::key(5), {2, 6, 8}, -1, 1).eval();
  const tj::Tensor mask = tj::tensor<std::int64_t>({2, 6}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0});
  const tj::Tensor attention = tjm::self_attention(x, weights.layers[0], tjm::attention_mask_bias(mask), 2);
  const ir::Plan plan = ir::plan_graph(ir::parse(tj::graph_text({attention})));
  INFO(ir::print_plan(plan));
  std::map<ir::Step::Kind, int> kinds;
  for (const ir::Step& step : plan.steps) ++kinds[step.kind];
  // Q, K and V each a product with its bias in the epilogue, read by the scores' product through
  // the head views (no copy of a head); the scores scaled and masked in their product's epilogue,
  // the mask bias (ops of the mask input alone) computed there too; the softmax one row step; the
  // context's product; and one loop: the heads merged by one copy (a view that strides cannot
  // express over the context's [B, N, T, D] layout; a finding of docs/models.md).
  CHECK(kinds[ir::Step::Kind::product] == 4);
  CHECK(kinds[ir::Step::Kind::row] == 1);
  CHECK(kinds[ir::Step::Kind::single] == 1);
  CHECK(kinds[ir::Step::Kind::loop] == 1);
  CHECK(plan.steps.size() == 7);
}

TEST_CASE("BERT layers: errors name the file, the field or the tensor") {
  TempFolder folder;
  file_test::write_bytes(folder / "heads.json", R"({"vocab_size": 4, "hidden_size": 10, "num_attention_heads": 3,
    "num_hidden_layers": 1, "intermediate_size": 4, "max_position_embeddings": 4, "type_vocab_size": 1})");
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "heads.json"),
                       doctest::Contains("is not a multiple of \"num_attention_heads\""), tj::Error);
  file_test::write_bytes(folder / "act.json", R"({"hidden_act": "relu"})");
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "act.json"),
                       doctest::Contains("\"hidden_act\" is \"relu\"; only \"gelu\""), tj::Error);
  file_test::write_bytes(folder / "missing.json", R"({"hidden_size": 8})");
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "missing.json"), doctest::Contains("has no \"vocab_size\""),
                       tj::Error);
  file_test::write_bytes(folder / "negative.json", R"({"vocab_size": -1})");
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "negative.json"),
                       doctest::Contains("\"vocab_size\" is not an integer"), tj::Error);
  file_test::write_bytes(folder / "broken.json", "{");
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "broken.json"), doctest::Contains("is not JSON"), tj::Error);
  CHECK_THROWS_WITH_AS(tjm::BertConfig::from_file(folder / "absent.json"), doctest::Contains("cannot be opened"),
                       tj::Error);

  const tjm::BertConfig config = small_config(folder);
  auto checkpoint = random_checkpoint(config, 1);
  checkpoint.erase("encoder.layer.1.output.dense.bias");
  CHECK_THROWS_WITH_AS(tjm::BertWeights::from_tensors(checkpoint, config),
                       doctest::Contains("no tensor \"encoder.layer.1.output.dense.bias\""), tj::Error);
  checkpoint = random_checkpoint(config, 1);
  checkpoint["embeddings.word_embeddings.weight"] = tj::zeros({40, 9});
  CHECK_THROWS_WITH_AS(tjm::BertWeights::from_tensors(checkpoint, config),
                       doctest::Contains("\"embeddings.word_embeddings.weight\" is f32[40, 9], expected f32[40, 8]"),
                       tj::Error);

  const tjm::BertEncoder encoder(config, tjm::BertWeights::from_tensors(random_checkpoint(config, 1), config));
  CHECK_THROWS_WITH_AS(encoder.embed(tj::zeros({1, 13}, tj::i64), tj::ones({1, 13}, tj::i64)),
                       doctest::Contains("13 tokens, more than the model's 12 positions"), tj::Error);
  CHECK_THROWS_WITH_AS(encoder.embed(tj::zeros({1, 3}, tj::i64), tj::ones({1, 4}, tj::i64)),
                       doctest::Contains("the attention mask must be integers of the ids' shape"), tj::Error);
  CHECK_THROWS_WITH_AS(encoder.embed(tj::zeros({1, 3}), tj::ones({1, 3}, tj::i64)),
                       doctest::Contains("ids must be integers"), tj::Error);
}

TEST_CASE("MiniLM embeddings: within 1e-5 of PyTorch's on the stored sentences") {
  const auto model = model_test::minilm_folder();
  if (!model) {
    MESSAGE("SKIPPED: needs all-MiniLM-L6-v2 (scripts/fetch_minilm.sh)");
    return;
  }
  const std::string here = std::string(TENSORJIT_SOURCE_DIR) + "/tests/models/";
  std::ifstream file(here + "minilm_sentences.txt");
  std::vector<std::string> sentences;
  for (std::string line; std::getline(file, line);) sentences.push_back(line);
  REQUIRE(sentences.size() == 20);

  const auto tokenizer = tjm::WordPieceTokenizer::from_file(*model + "/tokenizer.json");
  const auto encoder = tjm::BertEncoder::from_folder(*model);
  const tjm::TokenBatch batch = tokenizer.encode_batch(sentences);
  const tj::Tensor embeddings = encoder.embed(batch.ids, batch.attention_mask);
  const tj::Tensor reference = tj::load_npy(here + "minilm_reference.npy");
  REQUIRE(embeddings.shape() == reference.shape());
  const double difference = max_abs_difference(embeddings.to_vector<float>(), reference.to_vector<float>());
  MESSAGE("largest absolute difference from PyTorch: " << difference);
  CHECK(difference <= 1e-5);
  const std::vector<float> norms = (embeddings * embeddings).sum({1}).to_vector<float>();
  for (float norm : norms) CHECK(std::abs(norm - 1.0f) < 1e-5f);
}
