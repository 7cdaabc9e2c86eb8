// tensorjit::kernels — the precompiled packed GEMM: C = A·B for f32 and f64, batched, on general
// strides, with a per-tile epilogue hook and a caller-supplied parallel-for.
//
// This header is the whole public surface of the `tensorjit_kernels` target. It depends on nothing
// of the project and includes only <cstdint>. The design, the blocking table and the measured
// figures are in docs/gemm.md.
//
// Contract summary
//  - Strides are in elements and signed: row-major, column-major, transposed and sliced views
//    (negative strides included) of A and B are read in place by the packing routines.
//  - C is row-major with a leading dimension: element (i, j) of batch b lives at
//    c.data[b * c.batch_stride + i * c.row_stride + j]. Its column stride is 1 (the runtime
//    allocates C contiguous; a column-major C is the transposed product Cᵀ = Bᵀ·Aᵀ).
//  - C is overwritten (no alpha, no beta); it must not overlap A or B, and distinct (batch, row,
//    column) triples must address distinct elements of C.
//  - Determinism: every element of C is ONE chain of fused multiply-adds over k in increasing
//    order starting from +0: c = fma(a[i,0], b[0,j], +0); c = fma(a[i,1], b[1,j], c); ...
//    whatever the tile shape, blocking, thread count, vector width or instruction set. gemm()
//    and reference_gemm() therefore give identical bits. With k == 0, C is +0.
//  - Invalid arguments (negative sizes, null pointers with non-zero sizes, a row stride of C
//    smaller than n, overlapping C batches, an unknown vector width, ...) throw
//    std::invalid_argument; nothing is written. Not checked: that the strides stay inside the
//    caller's buffers (the runtime's views guarantee it).
//  - 16-bit operands (MatrixView::storage, f32 products only): converted exactly to f32 by the
//    packing, so C's bits are those of the same call on f32 copies of A and B.
//  - Memory: each thread that ran a product keeps its packing workspace for the next call (at
//    most about 10 MiB with the 512-bit table).
#pragma once

#include <cstdint>
#include <optional>

#include <tensorjit/kernels/parallel_for.hpp>

namespace tensorjit::kernels {

// How the elements of an f32 operand are stored (MatrixView<float>::storage): as f32, or as 16-bit
// floats (IEEE binary16, or bfloat16: the top half of an f32) that the GEMM converts to f32 as it
// packs them, exactly (binary16 with F16C's vcvtph2ps where the CPU has it, else in software with
// the same bits; bfloat16 by a 16-bit shift). The product is then the f32 product of the converted
// values, bit for bit: the conversion is exact, and the FMA chains are the same.
enum class Storage : std::uint8_t { native, f16, bf16 };

// A read-only operand: element (i, j) of batch b is data[b*batch_stride + i*row_stride +
// j*col_stride]. A batch stride of 0 broadcasts one matrix over every batch.
// With storage f16 or bf16 (T = float only) the elements are the 16-bit values at `narrow` instead,
// at the same indices (strides count 16-bit elements), and `data` is not read.
template <class T>
struct MatrixView {
  const T* data = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 1;
  std::int64_t batch_stride = 0;
  Storage storage = Storage::native;
  const std::uint16_t* narrow = nullptr;
};

// The output: row-major with a leading dimension (row_stride >= n), column stride 1.
template <class T>
struct OutputView {
  T* data = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t batch_stride = 0;
};

// The epilogue hook, called once for every region of C whose values are final.
//
//   c        points at element (row0, col0) of batch `batch` of C, or at the region's copy in a
//            scratch buffer when the hook consumes C (GemmArgs::epilogue_consumes_c);
//   ldc      is the row stride at c (element (row0 + r, col0 + s) is c[r * ldc + s]);
//   rows, cols > 0 give the region's extent: the MC rows of a block times up to 16 micro-panels
//   (as many as fit in 64 KiB, at least one) on the packed path, a row of up to 16 micro-tiles (at most MR x 16*NR, 2 KiB per row)
//   on the unpacked path, and with k == 0, when C is just zeroed, one task's whole rectangle.
//
// Contract: the regions of all calls of one gemm() tile C exactly (every element of every batch
// is in exactly one region, none is visited twice, also on edge tiles and when k == 0). A call
// happens right after the micro-kernels stored the region's final values, while they are still
// in L1 or L2, so an elementwise consumer (bias, activation, residual, cast) reads and writes them
// cheaply.
// Calls come from the parallel-for's worker threads, concurrently, on disjoint regions: the hook
// must be thread safe for disjoint regions. It should not throw; if it does, the exception is
// caught, the remaining tasks are skipped, gemm() rethrows it after run() returned, and C is then
// unspecified. The hook may itself call gemm() (a nested call gets its own workspace).
template <class T>
using Epilogue = void (*)(void* context, T* c, std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                          std::int64_t rows, std::int64_t cols, std::int64_t batch);

// A column bias and an activation the micro-kernels apply to their accumulators before they store
// a finished tile: c[b][i][j] = activation(chain[b][i][j] + column_bias[b * column_bias_batch_stride
// + j]) (each an IEEE operation on the element's one FMA chain; no bias when column_bias is null).
// For the most common consumers of a product (a dense layer's bias and relu) this is cheaper than
// the epilogue hook: C is stored once, with its final values, and never reloaded. When both are
// given, the hook sees the values after this stage. The bias's columns are contiguous.
enum class Activation {
  none,
  relu,  // x > 0 or NaN ? x : +0 (NaN kept, -0 becomes +0)
};
template <class T>
struct StoreStage {
  const T* column_bias = nullptr;
  std::int64_t column_bias_batch_stride = 0;  // 0: one bias for every batch
  Activation activation = Activation::none;
};

// Which compiled micro-kernel family to use. `best` is the widest the CPU supports. Asking for an
// instruction set the CPU lacks throws std::invalid_argument.
enum class InstructionSet { best, portable, avx2, avx512 };

struct GemmOptions {
  // 0: the native default (see native_vector_bits()); 128, 256 or 512 pick the micro-tile shape.
  // The runtime passes the user's VECTOR_BITS here. A width wider than the CPU's registers still
  // runs (each vector is split into the registers the CPU has) and gives the same bits.
  int vector_bits = 0;
  InstructionSet instruction_set = InstructionSet::best;
  ParallelFor parallel_for{};
  // Products with fewer multiply-adds (batch*m*n*k) run on the calling thread: below about 10 us
  // of work on one core, waking a pool's workers and joining them costs as much as the product.
  // Unset: 2^21 for f32 at 512 bits, in proportion to the lanes of an FMA otherwise (2^20 for f32
  // at 256 bits, 2^19 for f64 there), as a core does that many fewer multiply-adds a second.
  std::optional<std::int64_t> minimum_parallel_work;
  // Cache blocking override for tests and tuning; 0 keeps the blocks the rules derive from this
  // CPU's caches (docs/gemm.md).
  // mc is rounded up to a multiple of MR and nc to a multiple of NR.
  std::int64_t mc = 0, kc = 0, nc = 0;
  // Allow the unpacked path for small, skinny and L2-sized products (docs/gemm.md); false forces
  // the packed five loops (tests use it to cover both).
  bool allow_unpacked_path = true;
};

// An operand the epilogue hook reads along with C's region (a residual, say): its element (i, j) of
// batch b is at data + b * batch_stride + i * row_stride + j * element_bytes, strides in bytes, any
// sign; its columns are contiguous.
struct EpilogueRead {
  const void* data = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t batch_stride = 0;
  std::int64_t element_bytes = 0;  // > 0
};
inline constexpr int kMaxEpilogueReads = 4;

// B packed ahead of time by pack_b() (below), for a B that many products read unchanged (a model's
// weights): the GEMM then reads these panels instead of packing B on every call, which for a
// product of few rows costs as much as its multiply-adds (docs/gemm.md, "Packed ahead of time").
// `panel_width` is what pack_b() returned; it must be the NR of the kernel the call runs (the same
// vector_bits and instruction_set as pack_b's options), else gemm() throws std::invalid_argument.
template <class T>
struct PackedB {
  const T* data = nullptr;  // null: B is packed by each call, as usual
  int panel_width = 0;
};

// One (batched) product: C[b] = A[b]·B[b] for b in [0, batch), A[b] m×k, B[b] k×n, C[b] m×n.
template <class T>
struct GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  MatrixView<T> a{};
  MatrixView<T> b{};
  OutputView<T> c{};
  StoreStage<T> store_stage{};
  Epilogue<T> epilogue = nullptr;
  void* epilogue_context = nullptr;
  // The hook consumes C: it writes every result the caller needs itself (a layer's output over C's
  // memory, say, with streaming stores), and C's values are only its input. gemm() then stores
  // each region's final values to a per-thread scratch buffer that stays in L1 or L2 and passes
  // that to the hook (c and ldc point into it), so C's cache lines are not fetched from memory
  // only to be overwritten. Two cases still hand the hook C itself: k == 0 (C zeroed), and k above
  // the packed path's KC block (from the CPU's caches, docs/gemm.md), where C holds the partial
  // chains between blocks. After the call C holds what the hook wrote there; elsewhere it holds
  // the product when the hook got C itself, and what it held before when it got the scratch.
  // Requires an epilogue.
  bool epilogue_consumes_c = false;
  // Up to kMaxEpilogueReads operands the hook reads along with each region: element (i, j) of an
  // operand goes with element (i, j) of C. While a micro-kernel computes a tile's last KC block it
  // prefetches the tile's lines of each into L1, one row every fourth k step (rows beyond
  // ceil(k / 4) before the loop), so the hook finds them in cache instead of waiting on memory a
  // row at a time. Only a hint: no bit of any result depends on it, and nothing is read (a
  // prefetch does not fault). Requires an epilogue.
  const EpilogueRead* epilogue_reads = nullptr;
  int epilogue_read_count = 0;
  // B's k×n values packed by pack_b() from `b` (batch 1, or one B for every batch: b.batch_stride
  // == 0). `b` must still describe the same matrix. The bits of C are the same either way: the
  // panels hold B's values, and each element stays one FMA chain in increasing k.
  PackedB<T> packed_b{};
};

// pack_b's output size in elements for a k×n B under `options` (NR-wide panels of all k steps,
// zero padded to a multiple of NR columns): k * round_up(n, NR).
std::int64_t packed_b_elements(std::int64_t k, std::int64_t n, bool is_double, const GemmOptions& options = {});
// Packs B (k×n, any strides; with float, f16/bf16 storage converted exactly) into `destination`
// (packed_b_elements() values, no alignment required) for the kernel `options` select, and returns
// the panel width to put in PackedB. Serial; options.parallel_for is not used.
int pack_b(const MatrixView<float>& b, std::int64_t k, std::int64_t n, const GemmOptions& options, float* destination);
int pack_b(const MatrixView<double>& b, std::int64_t k, std::int64_t n, const GemmOptions& options,
           double* destination);

void gemm(const GemmArgs<float>& args, const GemmOptions& options = {});
void gemm(const GemmArgs<double>& args, const GemmOptions& options = {});

// The plain reference twin: serial scalar std::fma chains in the order the contract states. Same
// validation and the same epilogue contract (one call per batch covering all of C).
void reference_gemm(const GemmArgs<float>& args);
void reference_gemm(const GemmArgs<double>& args);

// What a call would run, for logs, dumps and tests.
struct KernelInfo {
  const char* instruction_set;  // "portable", "avx2" or "avx512"
  int vector_bits;              // the width after resolving 0
  int mr, nr;                   // micro-tile rows and columns
  std::int64_t mc, kc, nc;      // cache blocking
};
KernelInfo describe_float_kernel(const GemmOptions& options = {});
KernelInfo describe_double_kernel(const GemmOptions& options = {});

// The default width: the measured best micro-kernel on this CPU (docs/gemm.md), 512 with AVX-512.
int native_vector_bits();
bool cpu_supports(InstructionSet instruction_set);

// The data caches the blocking rules read (docs/gemm.md, "The blocking rules"): sizes in bytes,
// L3 as the share of one core (the L3 divided by the cores sharing it; 0 when there is none).
struct CacheSizes {
  std::int64_t l1d_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t l3_bytes_per_core = 0;
  const char* source = "";  // "sysfs", "cpuid" or "fallback"
};
// This machine's, detected once (sysfs, else CPUID leaf 4 / 0x8000001D, else a fallback).
CacheSizes host_cache_sizes();

}  // namespace tensorjit::kernels
