#include "fuzz_target.hpp"

namespace tensorjit::fuzz {

std::vector<Target>& targets() {
  static std::vector<Target> all;
  return all;
}

bool register_target(std::string name, TargetFunction function) {
  targets().push_back({std::move(name), function});
  return true;
}

}  // namespace tensorjit::fuzz
