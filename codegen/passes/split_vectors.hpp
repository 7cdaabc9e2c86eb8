// split_vectors: no IR vector wider than the kernel's width reaches the code generator.
//
// Why: a kernel holds several registers' worth of lanes in one IR vector (four interleaved
// registers in a long loop body, 64 virtual lanes in a reduction). The X86 backend legalizes such
// a vector with every register class the target features allow: the function attributes
// prefer-vector-width and min-legal-vector-width decide only whether 512-bit types are legal, and
// 256-bit types are legal whenever AVX is on. So a 128-bit kernel on an AVX host held ymm
// registers. Turning AVX off is not an option: FMA3 on xmm is VEX-encoded and needs it.
//
// Pre:  `function` is verified; `vector_bits` is 128, 256 or 512.
// Post: every elementwise op, compare, select, cast, elementwise intrinsic, phi, load, store,
//       shufflevector, freeze and constant-index insert/extractelement whose vectors held more
//       than `vector_bits` bits (bool vectors follow the lanes of the values they select) is
//       rewritten on pieces of at most `vector_bits` bits, lane for lane: the same operations on
//       the same values, so the same bits. A wide value still read by an instruction of another
//       kind is put back together for it (none in the kernels the lowering builds today; the
//       tools asm tests would show its registers).
#pragma once

#include <llvm/IR/Function.h>

namespace tensorjit::codegen {

// Returns whether anything changed.
bool split_vectors(llvm::Function& function, unsigned vector_bits);

}  // namespace tensorjit::codegen
