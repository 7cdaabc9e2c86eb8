// The process's Jit, made on first use with the widths and cache folder of the environment.
#pragma once

#include <tensorjit/codegen/jit.hpp>

namespace tensorjit::detail {

codegen::Jit& jit();

}  // namespace tensorjit::detail
