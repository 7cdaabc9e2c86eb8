// W16 for tensorjit's worker: all-MiniLM-L6-v2's sentence embeddings of a batch already tokenized
// (bench/README.md), through the layers of models/ as a user calls them.
#pragma once

#include <optional>
#include <string>

#include "worker_loop.hpp"

namespace bench {

// dims: sentences, tokens. Unsupported (with `why` saying how to fetch it) when the model is not in
// TENSORJIT_MINILM_DIR or ${XDG_CACHE_HOME:-~/.cache}/tensorjit/all-MiniLM-L6-v2.
std::optional<PreparedCase> prepare_minilm(const CaseRequest& request, std::string& why);

}  // namespace bench
