#include "runtime/src/jit_instance.hpp"

#include "runtime/src/config.hpp"

namespace tensorjit::detail {

codegen::Jit& jit() {
  static codegen::Jit instance([] {
    codegen::JitOptions options;
    options.vector_bits = config().vector_bits;
    options.cache_dir = config().cache_dir;
    options.tiered = config().tiered;
    options.perf_map = config().perf_map;
    return options;
  }());
  return instance;
}

}  // namespace tensorjit::detail
