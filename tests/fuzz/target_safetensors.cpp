// load_safetensors reads untrusted files (docs/files.md): no bytes may make it crash or read outside them.
#include <tensorjit/files.hpp>

#include "loaded_tensors.hpp"
#include "memory_file.hpp"

TJ_FUZZ_TARGET(safetensors) {
  const tensorjit::fuzz::MemoryFile file(bytes);
  tensorjit::fuzz::read_every_element(tensorjit::load_safetensors(file.path()));
}
