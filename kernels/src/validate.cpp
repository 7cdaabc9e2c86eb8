#include "validate.hpp"

#include <stdexcept>
#include <string>
#include <initializer_list>

namespace tensorjit::kernels::detail {
namespace {

[[noreturn]] void fail(const char* function, const std::string& message) {
  throw std::invalid_argument(std::string("tensorjit::kernels::") + function + ": " + message);
}

std::string shape_text(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         " batch=" + std::to_string(batch);
}

}  // namespace

template <class T>
void validate_arguments(const GemmArgs<T>& args, const char* function) {
  // The message is only built on failure: this runs on every call, also for tiny products.
  auto shape = [&] { return shape_text(args.m, args.n, args.k, args.batch); };
  if (args.m < 0 || args.n < 0 || args.k < 0 || args.batch < 0)
    fail(function, "sizes must be non-negative (" + shape() + ")");
  if (args.epilogue_consumes_c && args.epilogue == nullptr)
    fail(function, "epilogue_consumes_c is set without an epilogue: set the epilogue hook, or clear the flag so "
                   "that C is stored");
  if (args.epilogue_read_count < 0 || args.epilogue_read_count > kMaxEpilogueReads)
    fail(function, "epilogue_read_count is " + std::to_string(args.epilogue_read_count) + ": between 0 and " +
                       std::to_string(kMaxEpilogueReads) + " operands can be prefetched for the epilogue");
  if (args.epilogue_read_count > 0 && args.epilogue == nullptr)
    fail(function, "epilogue_reads are given without an epilogue: set the epilogue hook that reads them, or pass "
                   "no reads");
  if (args.epilogue_read_count > 0 && args.epilogue_reads == nullptr)
    fail(function, "epilogue_read_count is " + std::to_string(args.epilogue_read_count) +
                       " but epilogue_reads is null");
  for (int s = 0; s < args.epilogue_read_count; ++s) {
    const EpilogueRead& read = args.epilogue_reads[s];
    if (read.data == nullptr)
      fail(function, "epilogue read " + std::to_string(s) +
                         " has a null data pointer: point it at the operand's element (0, 0) of batch 0, or leave "
                         "the operand out");
    if (read.element_bytes <= 0)
      fail(function, "epilogue read " + std::to_string(s) + " has element_bytes " +
                         std::to_string(read.element_bytes) + ": give the size of one element (its columns are "
                         "contiguous)");
  }
  for (const MatrixView<T>* view : {&args.a, &args.b}) {
    const auto storage = static_cast<int>(view->storage);
    if (storage < 0 || storage > static_cast<int>(Storage::bf16))
      fail(function, "operand storage " + std::to_string(storage) + " is not native, f16 or bf16");
    if (sizeof(T) != 4 && view->storage != Storage::native)
      fail(function, "f16/bf16 operand storage is for f32 products only (a double product's operands are double)");
  }
  if (args.batch == 0 || args.m == 0 || args.n == 0) return;
  if (args.c.data == nullptr) fail(function, "C is null for a non-empty product (" + shape() + ")");
  // The pointer an operand is read through: `narrow` for 16-bit storage, `data` otherwise.
  auto missing = [](const MatrixView<T>& view) {
    return view.storage == Storage::native ? view.data == nullptr : view.narrow == nullptr;
  };
  if (args.k > 0 && (missing(args.a) || missing(args.b)))
    fail(function, "A or B is null for a product with k > 0 (" + shape() + "; with f16/bf16 storage the "
                   "operand's values are read through `narrow`)");
  if (args.m > 1 && args.c.row_stride < args.n)
    fail(function, "C's row stride " + std::to_string(args.c.row_stride) +
                       " is smaller than n (C is row-major with column stride 1; " + shape() + ")");
  if (args.c.row_stride < 0 || args.c.batch_stride < 0)
    fail(function, "C's strides must be non-negative (row stride " + std::to_string(args.c.row_stride) +
                       ", batch stride " + std::to_string(args.c.batch_stride) + ")");
  const std::int64_t c_extent = (args.m - 1) * args.c.row_stride + args.n;
  if (args.batch > 1 && args.c.batch_stride < c_extent)
    fail(function, "C's batch stride " + std::to_string(args.c.batch_stride) + " makes batches overlap (each spans " +
                       std::to_string(c_extent) + " elements; " + shape() + ")");
}

template <class T>
void validate_packed_b(const GemmArgs<T>& args, int kernel_nr, const char* function) {
  if (args.packed_b.panel_width != kernel_nr)
    fail(function, "packed_b has panels " + std::to_string(args.packed_b.panel_width) +
                       " wide but this call's kernel reads " + std::to_string(kernel_nr) +
                       "-wide panels: pack B with the same vector_bits and instruction_set as the call "
                       "(pack_b returns the width)");
  if (args.batch > 1 && args.b.batch_stride != 0)
    fail(function, "packed_b holds one B, but the " + std::to_string(args.batch) +
                       " batches read different Bs (b.batch_stride " + std::to_string(args.b.batch_stride) +
                       "): pass packed_b only when every batch reads the same B");
}

template <class T>
void validate_pack_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, const T* destination,
                     const char* function) {
  if (k < 0 || n < 0)
    fail(function, "sizes must be non-negative (k=" + std::to_string(k) + " n=" + std::to_string(n) + ")");
  const auto storage = static_cast<int>(b.storage);
  if (storage < 0 || storage > static_cast<int>(Storage::bf16))
    fail(function, "operand storage " + std::to_string(storage) + " is not native, f16 or bf16");
  if (sizeof(T) != 4 && b.storage != Storage::native)
    fail(function, "f16/bf16 operand storage is for f32 products only (a double product's operands are double)");
  if (k == 0 || n == 0) return;
  if (destination == nullptr) fail(function, "destination is null for a non-empty B");
  if (b.storage == Storage::native ? b.data == nullptr : b.narrow == nullptr)
    fail(function, "B is null (with f16/bf16 storage its values are read through `narrow`)");
}

template void validate_packed_b(const GemmArgs<float>&, int, const char*);
template void validate_packed_b(const GemmArgs<double>&, int, const char*);
template void validate_pack_b(const MatrixView<float>&, std::int64_t, std::int64_t, const float*, const char*);
template void validate_pack_b(const MatrixView<double>&, std::int64_t, std::int64_t, const double*, const char*);
template void validate_arguments(const GemmArgs<float>&, const char*);
template void validate_arguments(const GemmArgs<double>&, const char*);

void validate_options(const GemmOptions& options, const char* function) {
  const int bits = options.vector_bits;
  if (bits != 0 && bits != 128 && bits != 256 && bits != 512)
    fail(function, "vector_bits must be 0 (native), 128, 256 or 512, not " + std::to_string(bits));
  if (options.mc < 0 || options.kc < 0 || options.nc < 0)
    fail(function, "blocking overrides must be non-negative (mc=" + std::to_string(options.mc) +
                       " kc=" + std::to_string(options.kc) + " nc=" + std::to_string(options.nc) + ")");
  if (options.minimum_parallel_work.value_or(0) < 0)
    fail(function, "minimum_parallel_work must be non-negative, not " + std::to_string(*options.minimum_parallel_work));
  if (options.parallel_for.threads < 0)
    fail(function, "parallel_for.threads must be non-negative, not " + std::to_string(options.parallel_for.threads));
  if (!cpu_supports(options.instruction_set))
    fail(function, "this CPU does not support the requested instruction set");
}

}  // namespace tensorjit::kernels::detail
