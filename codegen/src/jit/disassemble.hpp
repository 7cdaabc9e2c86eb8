// Assembly text of a relocatable object, for the `.s` dump: the object the JIT linked, decoded
// with LLVM's MC disassembler and printed with its instruction printer (AT&T syntax), so the dump
// shows exactly the code that ran rather than a second codegen.
#pragma once

#include <string>
#include <string_view>

namespace tensorjit::codegen {

// Throws tensorjit::InternalError if the bytes are not an object LLVM can read for `triple`.
std::string disassemble_object(std::string_view object_bytes, const std::string& triple,
                               const std::string& cpu, const std::string& features);

}  // namespace tensorjit::codegen
