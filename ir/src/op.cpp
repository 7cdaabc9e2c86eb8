#include <tensorjit/ir/op.hpp>

namespace tensorjit::ir {

std::optional<Op> op_from_name(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (kOpTable[i].name == name) return static_cast<Op>(i);
  return std::nullopt;
}

}  // namespace tensorjit::ir
