#include "codegen/src/jit/module_builder.hpp"

#include <string>

namespace tensorjit::codegen {

void set_kernel_function_attributes(llvm::Function& function, int vector_bits) {
  function.addFnAttr(llvm::Attribute::NoUnwind);
  function.addFnAttr("prefer-vector-width", std::to_string(vector_bits));
  function.addFnAttr("min-legal-vector-width", std::to_string(vector_bits));
}

}  // namespace tensorjit::codegen
