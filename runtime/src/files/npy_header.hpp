// The header of a .npy file: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read from any numpy version's files and written as numpy writes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <tensorjit/tensor.hpp>

namespace tensorjit::files {

struct NpyHeader {
  std::string descr;  // numpy's dtype string: '<f4', '>i8', '|b1'
  bool fortran_order = false;
  Shape shape;
};

// Throws Error starting with `where` when the text is not such a dict.
NpyHeader parse_npy_header(std::string_view text, const std::string& where);

// The bytes before the data: magic, version (1.0, or 2.0 when the header needs a 4-byte length),
// the dict, and spaces and a newline up to a multiple of 64 bytes so that the data is aligned.
std::string npy_preamble(std::string_view descr, const Shape& shape);

}  // namespace tensorjit::files
