// A hand-built kernel for the JIT tests: y[i] = a[i]*b[i] + c[i] over <lanes x float> vectors with
// a scalar tail, written as the lowering will write kernels (explicit vectors, no fast-math flags).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/src/jit/module_builder.hpp"

namespace tensorjit::codegen::testing {

using MultiplyAddKernel = void(const float* a, const float* b, const float* c, float* y,
                               std::int64_t count);

// Fills `module` with the kernel named `symbol`, at `vector_bits` (lanes = vector_bits / 32).
void build_multiply_add(llvm::Module& module, const std::string& symbol, int vector_bits);

ModuleBuilder multiply_add_builder(std::string symbol, int vector_bits);

// The C++ oracle (the tests are built with -ffp-contract=off: a multiply, then an add).
std::vector<float> multiply_add_reference(const std::vector<float>& a, const std::vector<float>& b,
                                          const std::vector<float>& c);

// Inputs of `count` floats from a fixed seed, with values whose products round.
std::vector<float> random_floats(std::size_t count, unsigned seed);

}  // namespace tensorjit::codegen::testing
