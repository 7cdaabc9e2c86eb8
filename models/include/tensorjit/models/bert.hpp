// BERT's encoder as layers written on the public API, and the sentence embedding of
// sentence-transformers (mean pooling over the attention mask, L2 normalisation): what
// all-MiniLM-L6-v2 computes (docs/models.md). Every function builds lazy tensors; nothing runs
// until the caller reads or evaluates the result, so one eval of the embeddings plans the whole
// forward pass at once (each matmul with its bias, activation or residual in its epilogue, each
// layernorm and softmax one row kernel).
//
// Shapes: B sentences of T tokens (padded to the batch's longest), hidden size H, heads N of size
// D = H / N, FFN width F.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <tensorjit/tensor.hpp>

namespace tensorjit::models {

// The fields of a Hugging Face BERT `config.json` the encoder reads.
struct BertConfig {
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;          // H
  std::int64_t num_attention_heads = 0;  // N, dividing H
  std::int64_t num_hidden_layers = 0;
  std::int64_t intermediate_size = 0;    // F
  std::int64_t max_position_embeddings = 0;
  std::int64_t type_vocab_size = 0;
  double layer_norm_eps = 1e-12;

  // Reads `config.json`. Throws tensorjit::Error naming the file and the field when a field is
  // missing or out of range, or when the file asks for what the encoder does not implement (an
  // activation other than erf GELU, position embeddings other than absolute).
  static BertConfig from_file(const std::string& path);
};

// A dense layer as torch.nn.Linear stores it: y = x @ weight^T + bias, weight [out, in].
struct Linear {
  Tensor weight;
  Tensor bias;
};

struct LayerNormWeights {
  Tensor gamma;
  Tensor beta;
};

struct BertEmbeddingWeights {
  Tensor word;       // [vocab, H]
  Tensor position;   // [max positions, H]
  Tensor token_type; // [types, H]
  LayerNormWeights norm;
};

struct BertLayerWeights {
  Linear query, key, value;  // [H, H] each
  Linear attention_output;   // [H, H]
  LayerNormWeights attention_norm;
  Linear intermediate;       // [F, H]
  Linear output;             // [H, F]
  LayerNormWeights output_norm;
};

struct BertWeights {
  BertEmbeddingWeights embeddings;
  std::vector<BertLayerWeights> layers;

  // The tensors of a Hugging Face BertModel checkpoint, by their names ("embeddings.*",
  // "encoder.layer.<i>.*"), checked against `config`'s shapes. Throws tensorjit::Error naming a
  // missing tensor or one of the wrong shape or dtype.
  static BertWeights from_tensors(const std::map<std::string, Tensor>& tensors, const BertConfig& config);
};

// ---- layers ----

// x @ weight^T + bias over the last axis of x. The transposed weight is a view: the GEMM reads it
// in place, and the bias runs in the product's epilogue.
Tensor linear(const Tensor& x, const Linear& layer);

// layernorm(word[ids] + position[0..T) + token_type[0]) for i64 ids [B, T]: token type 0 for every
// token, as sentence-transformers calls the model. Throws Error when T exceeds the position table.
Tensor bert_embeddings(const BertEmbeddingWeights& weights, const Tensor& ids, double eps);

// An additive mask [B, 1, 1, T] from an i64 attention mask [B, T] (1: a token, 0: padding): 0 for a
// token, the lowest finite f32 for padding (BertModel's), so that a padded key's probability is 0.
Tensor attention_mask_bias(const Tensor& attention_mask);

// Multi-head self-attention of x [B, T, H] with the additive mask [B, 1, 1, T]: softmax(Q K^T /
// sqrt(D) + mask) V per head, the heads merged back to [B, T, H] (before the output projection).
// The heads are views of Q, K and V ([B, T, N, D] permuted to [B, N, T, D]), never copies.
Tensor self_attention(const Tensor& x, const BertLayerWeights& layer, const Tensor& mask_bias,
                      std::int64_t heads);

// One post-norm encoder layer: attention, output projection, residual, layernorm; then the FFN
// (GELU, erf form), residual, layernorm.
Tensor bert_layer(const Tensor& x, const BertLayerWeights& layer, const Tensor& mask_bias,
                  std::int64_t heads, double eps);

// The mean of x [B, T, H] over the tokens whose mask [B, T] is 1 (sentence-transformers' mean
// pooling: the sum of the masked rows over max(count, 1e-9)).
Tensor mean_pooling(const Tensor& x, const Tensor& attention_mask);

// x / max(||x||, eps) along the last axis (torch.nn.functional.normalize).
Tensor l2_normalize(const Tensor& x, double eps = 1e-12);

// ---- the model ----

// The BERT encoder of a checkpoint folder: `config.json` and `model.safetensors` (its tensors are
// views on the mapped file, not copies).
class BertEncoder {
 public:
  static BertEncoder from_folder(const std::string& folder);
  BertEncoder(BertConfig config, BertWeights weights);

  // The last hidden state [B, T, H] for i64 ids and attention mask [B, T] (lazy).
  Tensor forward(const Tensor& ids, const Tensor& attention_mask) const;
  // Mean-pooled and L2-normalised [B, H]: sentence-transformers' sentence embedding (lazy).
  Tensor embed(const Tensor& ids, const Tensor& attention_mask) const;

  const BertConfig& config() const { return config_; }

 private:
  BertConfig config_;
  BertWeights weights_;
};

}  // namespace tensorjit::models
