// Fused elementwise loop kernels: the contract between the fusion plan (ir/, runtime/) and the
// lowering to LLVM IR (codegen/src/lower_loop*.cpp). LLVM-free.
//
// A kernel is an expression graph of elementwise ops (ops.def categories unary, binary, ternary)
// and gathers, whose leaves are `input`, `iota` and `constant` nodes, all of one shape: the
// iteration domain.
// Views were folded into the inputs' layouts before (no movement op reaches a kernel). Its outputs
// are the graph's outputs, each written contiguously over the domain.
//
// The compiled function walks the row-major flat range [begin, end) of the domain:
//   element i, with multi-index (i_0, ..., i_{rank-1}), reads input k at
//     inputs[k] + sum_d i_d * input_strides[k * kMaxLoopRank + d]   (in elements of its dtype)
//   and writes output j at outputs[j] + i.
// A kernel of the `tile` form (LoopForm) instead takes a rank-2 domain [rows, columns], always
// runs all of it (begin and end are ignored), and writes output j at
//     outputs[j] + i_0 * output_strides[j * kMaxLoopRank] + i_1          (inner stride 1):
// a product epilogue (runtime/src/product_step.cpp) runs one call per finished tile of C, whose
// rows are ldc apart, and writes its result in place into C. Its loop nest is a plain loop over
// rows (no flat-range decomposition, no odometer), since a tile has only a few short rows.
// A kernel of the `placed` form is a flat kernel (any rank, any [begin, end)) that writes output j
// through strides, as a tile kernel does: at
//     outputs[j] + sum_d i_d * output_strides[j * kMaxLoopRank + d]      (inner stride 1):
// the parts of a concat (runtime/src/concat_step.cpp) write their values in place into its buffer.
// Iota leaves. An `iota` leaf is an argument like an input, with strides, but has no memory: its
// pointer is the address its element at offset e would have in a buffer at kIotaAddress
// (kIotaAddress + e * itemsize; never dereferenced), and the kernel computes the value at the
// offset it reaches there as ir::IotaAttr defines it (start + e * step in double, converted as
// cast converts), so a view folded into its layout reads what that view of the iota holds, and
// any caller's pointer arithmetic on inputs (blocks, tiles, rows) works on it unchanged. The reduce
// and row kernels take iota leaves the same way.
// Gathers (flat form only). A gather's operand 0 is an `input` leaf that only gathers read, of the
// domain's shape: its strides are those of the gathered tensor with the indexed axis's set to 0,
// and its element at an index of the domain is the one at position 0 along that axis. The kernel
// reads the element at that address plus k * axis stride, k being the gather's index (operand 1,
// any value of the expression) resolved against the axis's extent (ir::resolve_index);
// LoopArgs::gather_bounds gives the extent and the axis stride. An index outside [-extent, extent)
// is never read through: the lane reads k = 0 instead (so an input of extent 0 must point at one
// readable element with all strides 0), and the first such index the call meets, in the order of
// the flat range, is written to LoopArgs::fault if fault->found is still 0. The caller then throws
// (ir::throw_index_out_of_range). An index the same across the inner axis (a broadcast input or a
// constant) reads whole vectors of the gathered row, any other one element per lane.
// Sizes and strides are run-time arguments: a new size or stride does not recompile; only the
// inner-axis access class of each input (below) is part of the kernel's key. The inner axis is
// processed in explicit vectors of the target width, unrolled; the tail of a row computes the same
// bits as the vector body (elementwise code is lane independent). Any split of the range across
// threads gives the same bits.
//
// What the lowering (codegen/src/lower/lower_loop.cpp) guarantees and assumes:
//   - lanes: every value is a vector of L lanes, L = vector bits / bits of the kernel's widest
//     dtype (bool counts 8 bits); the main loop takes 4 vectors per iteration (1 when the body is
//     long: vector math, integer division per lane), then single vectors, then a scalar tail
//     emitting the same per-lane instructions;
//   - it trusts the access classes: a contiguous input's inner stride is taken as 1 and a broadcast
//     input's as 0 whatever input_strides holds; a strided input's inner stride is read at run time
//     (any value, negative too); outer strides are read at run time for every class;
//   - outputs must not overlap inputs, except an output that is exactly a contiguous input of the
//     same dtype with the same strides (in place: each element is read before it is written);
//   - the cost per row piece is a few dozen instructions (odometer, hoisted broadcast loads, loop
//     set-up): domains whose inner extent is small should have their axes merged by the caller
//     where the strides allow it (the kernel does not merge axes);
//   - transcendental ops are inline polynomials (codegen/src/vector_math/, docs/vector_math.md),
//     within their documented ULP bounds of the interpreter's libm results, not bit-identical.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::codegen {

inline constexpr int kMaxLoopRank = 8;

// Where an iota leaf's element offset 0 would be (above): far from null, and low enough that
// kIotaAddress + offset * itemsize fits in 64 bits for any offset a node can have.
inline constexpr std::uintptr_t kIotaAddress = std::uintptr_t{1} << 12;

// How an input is read along the innermost axis of the domain.
enum class InnerAccess : std::uint8_t {
  contiguous,  // stride 1: vector loads
  broadcast,   // stride 0: one scalar load, splat
  strided,     // any other stride: scalar loads assembled into a vector
};

// The first index out of range a kernel call met ("Gathers" above).
struct IndexFault {
  std::int64_t found = 0;     // 0 until the call finds one
  std::int64_t input = 0;     // the gathered input, by position in LoopKernelSpec::inputs
  std::int64_t index = 0;     // the index's value
  std::int64_t position = 0;  // its element's position in the domain's flat row-major range
};

struct LoopArgs {
  std::int64_t rank;                       // 1..kMaxLoopRank (a rank-0 domain is passed as [1])
  std::int64_t shape[kMaxLoopRank];        // extents, row-major
  const void* const* inputs;               // one base pointer per input, in LoopKernelSpec order
  const std::int64_t* input_strides;       // inputs x kMaxLoopRank, in elements
  void* const* outputs;                    // one buffer per output
  // outputs x kMaxLoopRank, in elements; read only by tile and placed kernels (flat kernels write
  // each output contiguously and may leave this null).
  const std::int64_t* output_strides;
  // inputs x 2: for each input a gather reads (above), its axis's extent and stride in elements;
  // other inputs' entries are not read. May be null when no gather.
  const std::int64_t* gather_bounds;
  IndexFault* fault;  // may be null when no gather
};

using LoopFunction = void(const LoopArgs* args, std::int64_t begin, std::int64_t end);

enum class LoopForm : std::uint8_t {
  flat,  // any rank, any [begin, end) of the row-major range, contiguous outputs
  tile,  // rank 2, the whole domain, outputs through LoopArgs::output_strides
  placed,  // any rank, any [begin, end), outputs through LoopArgs::output_strides
};

struct LoopKernelSpec {
  ir::Graph expression;                      // outputs = the kernel's outputs
  std::vector<ir::NodePtr> inputs;           // the graph's `input` and `iota` leaves, in argument order
  std::vector<InnerAccess> access;           // one per input
  LoopForm form = LoopForm::flat;
  // Store whole vectors to the outputs with non-temporal (streaming) stores, which write around
  // the caches, for outputs too large to stay in them: a normal store first reads the line it
  // writes (one more pass over the output's memory) and evicts data the kernel still reads. Each
  // row piece first runs scalar iterations up to an element index that is a multiple of the lane
  // count, so every vector store after them is aligned to its size. The flat form counts that
  // index from LoopArgs::outputs, which must be 64-byte aligned (the runtime's buffers are). The
  // tile and placed forms count it from output 0's address: every output's element (r, j) must sit at the
  // same element index e from a 64-byte aligned base (the same row stride in elements for all, as
  // in the runtime's epilogue outputs, contiguous over the product). The kernel ends with a store
  // fence, so the outputs are visible to whichever thread synchronises with the caller afterwards.
  // The same bits as without.
  bool streaming_stores = false;
  // Tile form only: one flag per input (or empty: none) for the inputs whose rows the caller
  // brings into cache before the call: a product epilogue's tile, which the GEMM has just stored,
  // and the leaves the GEMM prefetches while it computes the region
  // (kernels::GemmArgs::epilogue_reads). The kernel prefetches every other contiguous input's rows
  // a few rows ahead, and not these. The same bits either way; part of the key.
  std::vector<bool> fetched_by_caller{};
  // Placed form only: one class per output (or empty: all contiguous), contiguous (inner stride
  // 1, vector stores) or strided (the inner stride read from LoopArgs::output_strides, one scalar
  // store per element; never streamed). Part of the key.
  std::vector<InnerAccess> output_access{};
};

// The structural key: ops, dtypes, constants (bitwise), the wiring of the DAG, input order and
// access classes, the form, streaming stores and the inputs fetched by the caller. No sizes,
// strides or buffer identities.
std::string loop_kernel_key(const LoopKernelSpec& spec);

// Compiles (or finds in the Jit's caches) the kernel; the handle's address is a LoopFunction.
KernelHandle compile_loop_kernel(Jit& jit, const LoopKernelSpec& spec, const DumpRequest* dump = nullptr);

}  // namespace tensorjit::codegen
