// BERT's layers as a user writes them with tensorjit's public API: each function builds lazy
// tensors, and the fusion passes find the kernels (docs/models.md, "The plan of one layer").
#include <tensorjit/models/bert.hpp>

#include <cmath>
#include <limits>

#include <tensorjit/files.hpp>
#include <tensorjit/functions.hpp>

namespace tensorjit::models {
namespace {

// [B, T, H] -> [B, N, T, D]: a reshape and a permute, both views.
Tensor split_heads(const Tensor& t, std::int64_t heads) {
  const Shape& s = t.shape();
  return t.reshape({s[0], s[1], heads, s[2] / heads}).permute({0, 2, 1, 3});
}

// [B, N, T, D] -> [B, T, H].
Tensor merge_heads(const Tensor& t) {
  const Shape& s = t.shape();
  return t.permute({0, 2, 1, 3}).reshape({s[0], s[2], s[1] * s[3]});
}

void check_batch(const char* function, const Tensor& ids, const Tensor& attention_mask) {
  if (ids.rank() != 2 || !is_integer(ids.dtype()))
    throw Error(std::string(function) + ": ids must be integers of shape [sentences, tokens]");
  if (attention_mask.shape() != ids.shape() || !is_integer(attention_mask.dtype()))
    throw Error(std::string(function) + ": the attention mask must be integers of the ids' shape");
}

}  // namespace

Tensor linear(const Tensor& x, const Linear& layer) { return matmul(x, layer.weight.transpose()) + layer.bias; }

Tensor bert_embeddings(const BertEmbeddingWeights& weights, const Tensor& ids, double eps) {
  const std::int64_t tokens = ids.shape().at(1);
  if (tokens > weights.position.shape()[0])
    throw Error("bert_embeddings: " + std::to_string(tokens) + " tokens, more than the model's " +
                std::to_string(weights.position.shape()[0]) + " positions (truncate the text)");
  const Tensor x = take(weights.word, ids) + weights.position.slice(0, 0, tokens) +
                   weights.token_type.slice(0, 0, 1);
  return layernorm(x, weights.norm.gamma, weights.norm.beta, eps);
}

Tensor attention_mask_bias(const Tensor& attention_mask) {
  const Shape& s = attention_mask.shape();
  return where(attention_mask == 0, scalar(std::numeric_limits<float>::lowest()), 0.0f)
      .reshape({s.at(0), 1, 1, s.at(1)});
}

Tensor self_attention(const Tensor& x, const BertLayerWeights& layer, const Tensor& mask_bias,
                      std::int64_t heads) {
  const Tensor q = split_heads(linear(x, layer.query), heads);
  const Tensor k = split_heads(linear(x, layer.key), heads);
  const Tensor v = split_heads(linear(x, layer.value), heads);
  // Divided, not multiplied by the reciprocal, as BertModel does: the same roundings.
  const double scale = std::sqrt(static_cast<double>(x.shape().back() / heads));
  const Tensor scores = matmul(q, k.transpose(2, 3)) / scale + mask_bias;
  return merge_heads(matmul(softmax(scores, -1), v));
}

Tensor bert_layer(const Tensor& x, const BertLayerWeights& layer, const Tensor& mask_bias,
                  std::int64_t heads, double eps) {
  const Tensor attended = linear(self_attention(x, layer, mask_bias, heads), layer.attention_output);
  const Tensor y = layernorm(attended + x, layer.attention_norm.gamma, layer.attention_norm.beta, eps);
  const Tensor hidden = gelu(linear(y, layer.intermediate));
  return layernorm(linear(hidden, layer.output) + y, layer.output_norm.gamma, layer.output_norm.beta, eps);
}

Tensor mean_pooling(const Tensor& x, const Tensor& attention_mask) {
  const Tensor m = attention_mask.astype(f32).unsqueeze(-1);  // [B, T, 1]
  return (x * m).sum({1}) / maximum(m.sum({1}), 1e-9f);
}

Tensor l2_normalize(const Tensor& x, double eps) {
  return x / maximum(sqrt((x * x).sum({-1}, true)), static_cast<float>(eps));
}

BertEncoder::BertEncoder(BertConfig config, BertWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {}

BertEncoder BertEncoder::from_folder(const std::string& folder) {
  BertConfig config = BertConfig::from_file(folder + "/config.json");
  BertWeights weights = BertWeights::from_tensors(load_safetensors(folder + "/model.safetensors"), config);
  return BertEncoder(std::move(config), std::move(weights));
}

Tensor BertEncoder::forward(const Tensor& ids, const Tensor& attention_mask) const {
  check_batch("BertEncoder::forward", ids, attention_mask);
  const Tensor mask_bias = attention_mask_bias(attention_mask);
  Tensor x = bert_embeddings(weights_.embeddings, ids, config_.layer_norm_eps);
  for (const BertLayerWeights& layer : weights_.layers)
    x = bert_layer(x, layer, mask_bias, config_.num_attention_heads, config_.layer_norm_eps);
  return x;
}

Tensor BertEncoder::embed(const Tensor& ids, const Tensor& attention_mask) const {
  check_batch("BertEncoder::embed", ids, attention_mask);
  return l2_normalize(mean_pooling(forward(ids, attention_mask), attention_mask));
}

}  // namespace tensorjit::models
