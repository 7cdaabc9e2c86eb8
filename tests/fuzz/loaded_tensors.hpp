// What the file targets do with what a loader accepted: read every element, so that a view a
// loader made past the end of its file is caught by the sanitizers.
#pragma once

#include <map>
#include <string>

#include <tensorjit/tensor.hpp>

#include "fuzz_target.hpp"

namespace tensorjit::fuzz {

inline void read_every_element(const Tensor& tensor) {
  const auto values = tensor.to_vector<double>();
  TJ_FUZZ_REQUIRE(static_cast<std::int64_t>(values.size()) == tensor.size());
}

inline void read_every_element(const std::map<std::string, Tensor>& tensors) {
  for (const auto& [name, tensor] : tensors) read_every_element(tensor);
}

}  // namespace tensorjit::fuzz
