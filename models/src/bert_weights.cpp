// BertWeights::from_tensors: a BertModel checkpoint's tensors by name, each checked against the
// config's shapes before any layer is built, so that a wrong file fails here, naming the tensor.
#include <tensorjit/models/bert.hpp>

#include <sstream>

namespace tensorjit::models {
namespace {

class WeightReader {
 public:
  explicit WeightReader(const std::map<std::string, Tensor>& tensors) : tensors_(tensors) {}

  Tensor get(const std::string& name, const Shape& shape) const {
    const auto hit = tensors_.find(name);
    if (hit == tensors_.end())
      throw Error("BertWeights::from_tensors: the checkpoint has no tensor \"" + name +
                  "\" (is it a BertModel checkpoint, and does config.json describe it?)");
    const Tensor& t = hit->second;
    if (t.shape() != shape || t.dtype() != f32)
      throw Error("BertWeights::from_tensors: \"" + name + "\" is " + describe(t) + ", expected f32" +
                  text(shape) + " from config.json");
    return t;
  }
  Linear linear(const std::string& prefix, std::int64_t out, std::int64_t in) const {
    return {get(prefix + ".weight", {out, in}), get(prefix + ".bias", {out})};
  }
  LayerNormWeights norm(const std::string& prefix, std::int64_t extent) const {
    return {get(prefix + ".weight", {extent}), get(prefix + ".bias", {extent})};
  }

 private:
  static std::string text(const Shape& shape) {
    std::ostringstream out;
    out << "[";
    for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
    out << "]";
    return out.str();
  }
  static std::string describe(const Tensor& t) { return std::string(dtype_name(t.dtype())) + text(t.shape()); }

  const std::map<std::string, Tensor>& tensors_;
};

}  // namespace

BertWeights BertWeights::from_tensors(const std::map<std::string, Tensor>& tensors, const BertConfig& config) {
  const WeightReader read(tensors);
  const std::int64_t h = config.hidden_size, f = config.intermediate_size;
  BertWeights w;
  w.embeddings.word = read.get("embeddings.word_embeddings.weight", {config.vocab_size, h});
  w.embeddings.position = read.get("embeddings.position_embeddings.weight", {config.max_position_embeddings, h});
  w.embeddings.token_type = read.get("embeddings.token_type_embeddings.weight", {config.type_vocab_size, h});
  w.embeddings.norm = read.norm("embeddings.LayerNorm", h);
  for (std::int64_t i = 0; i < config.num_hidden_layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    BertLayerWeights layer;
    layer.query = read.linear(p + "attention.self.query", h, h);
    layer.key = read.linear(p + "attention.self.key", h, h);
    layer.value = read.linear(p + "attention.self.value", h, h);
    layer.attention_output = read.linear(p + "attention.output.dense", h, h);
    layer.attention_norm = read.norm(p + "attention.output.LayerNorm", h);
    layer.intermediate = read.linear(p + "intermediate.dense", f, h);
    layer.output = read.linear(p + "output.dense", h, f);
    layer.output_norm = read.norm(p + "output.LayerNorm", h);
    w.layers.push_back(std::move(layer));
  }
  return w;
}

}  // namespace tensorjit::models
