// A whole .npy file in memory (a mapped file, or an npz member) read as one stored tensor; and the
// descr tensorjit writes for each dtype.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/src/files/stored_tensor.hpp"

namespace tensorjit::files {

// Checks the magic, version, header and data size of the .npy bytes [data, data + size), and
// returns where its tensor lies. Throws Error starting with `where` for anything malformed or a
// dtype tensorjit cannot hold.
StoredTensor read_npy(const std::byte* data, std::size_t size, const std::string& where);

// '<f4', '<f8', '<f2', '<i4', '<i8', '|b1'; bf16, which numpy lacks, throws Error starting with `where`.
std::string_view npy_descr(DType dtype, const std::string& where);

}  // namespace tensorjit::files
