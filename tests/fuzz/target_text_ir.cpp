// The text IR parser reads untrusted .tjir files. Property: whatever it accepts prints as text it
// accepts again, unchanged.
#include <string>
#include <string_view>

#include <tensorjit/ir/text.hpp>

#include "fuzz_target.hpp"

TJ_FUZZ_TARGET(text_ir) {
  namespace ir = tensorjit::ir;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::string printed = ir::print(ir::parse(text));
  TJ_FUZZ_REQUIRE(ir::print(ir::parse(printed)) == printed);
}
