#include "minilm_case.hpp"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include <tensorjit/models/bert.hpp>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;
namespace tjm = tensorjit::models;

namespace bench {
namespace {

// The folder scripts/fetch_minilm.sh fills (the tests and the Python peers look in the same place).
std::string minilm_folder() {
  if (const char* chosen = std::getenv("TENSORJIT_MINILM_DIR"); chosen != nullptr && *chosen != '\0') return chosen;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0')
    return std::string(cache) + "/tensorjit/all-MiniLM-L6-v2";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.cache/tensorjit/all-MiniLM-L6-v2";
}

// [CLS], words from the vocabulary's middle, [SEP], no padding: minilm_ids() of python_peers.py.
tj::Tensor synthetic_ids(std::int64_t sentences, std::int64_t tokens) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(sentences * tokens));
  for (std::int64_t s = 0; s < sentences; ++s)
    for (std::int64_t t = 0; t < tokens; ++t)
      ids[static_cast<std::size_t>(s * tokens + t)] =
          t == 0 ? 101 : t == tokens - 1 ? 102 : 2000 + (s * 7 + t * 13) % 20000;
  return tj::tensor<std::int64_t>({sentences, tokens}, ids);
}

}  // namespace

std::optional<PreparedCase> prepare_minilm(const CaseRequest& request, std::string& why) {
  const std::string folder = minilm_folder();
  if (!std::filesystem::exists(folder + "/model.safetensors")) {
    why = "all-MiniLM-L6-v2 is not in " + folder + ": bash scripts/fetch_minilm.sh";
    return std::nullopt;
  }
  static const auto encoder = std::make_shared<const tjm::BertEncoder>(tjm::BertEncoder::from_folder(folder));
  const tj::Tensor ids = synthetic_ids(request.dims.at(0), request.dims.at(1));
  const tj::Tensor mask = tj::ones(ids.shape(), tj::i64);
  auto last = std::make_shared<tj::Tensor>();
  PreparedCase prepared;
  prepared.run = [ids, mask, last] { *last = encoder->embed(ids, mask).eval(); };
  prepared.write_outputs = [last](std::FILE* file) {
    const std::vector<float> values = last->to_vector<float>();
    std::fwrite(values.data(), sizeof(float), values.size(), file);
  };
  return prepared;
}

}  // namespace bench
