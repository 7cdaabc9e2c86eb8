// The driver: checks arguments, picks the kernel family (CPUID and the requested vector width),
// resolves the blocking, picks the packed or unpacked path, cuts the product into tasks (batches x
// row parts x column parts, never k) and runs them on the caller's parallel-for, each with the
// workspace of the thread it runs on.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <numeric>

#include "kernel_family.hpp"
#include "tensorjit/kernels/gemm.hpp"
#include "validate.hpp"
#include "workspace.hpp"

namespace tensorjit::kernels {
namespace {

using detail::Blocking;
using detail::KernelFamily;
using detail::RegionFunction;
using detail::RegionProblem;

InstructionSet resolve_instruction_set(InstructionSet requested) {
  if (requested != InstructionSet::best) return requested;
  if (cpu_supports(InstructionSet::avx512)) return InstructionSet::avx512;
  if (cpu_supports(InstructionSet::avx2)) return InstructionSet::avx2;
  return InstructionSet::portable;
}

const KernelFamily& select_family(const GemmOptions& options) {
  const int bits = options.vector_bits == 0 ? native_vector_bits() : options.vector_bits;
  switch (resolve_instruction_set(options.instruction_set)) {
    case InstructionSet::avx512:
      return detail::avx512_family(bits);
    case InstructionSet::avx2:
      return detail::avx2_family(bits);
    default:
      return detail::portable_family(bits);
  }
}

Blocking resolve_blocking(Blocking blocking, const GemmOptions& options) {
  if (options.mc > 0) blocking.mc = detail::round_up(options.mc, blocking.mr);
  if (options.kc > 0) blocking.kc = options.kc;
  if (options.nc > 0) blocking.nc = detail::round_up(options.nc, blocking.nr);
  return blocking;
}

// The blocks the rules give this family's micro-kernel on this CPU's caches (blocking.hpp).
template <class T>
const Blocking& rule_blocking(const KernelFamily& family) {
  if constexpr (sizeof(T) == 4) return family.float_blocking;
  else return family.double_blocking;
}

template <class T>
RegionFunction<T> packed_function(const KernelFamily& family) {
  if constexpr (sizeof(T) == 4) return family.float_packed;
  else return family.double_packed;
}

template <class T>
RegionFunction<T> unpacked_function(const KernelFamily& family) {
  if constexpr (sizeof(T) == 4) return family.float_unpacked;
  else return family.double_unpacked;
}

// The unpacked path (unpacked_gemm.hpp) reads A in place and B in place too when its rows are
// contiguous. It wins whenever packing A is not repaid: small and skinny products (a tile of mostly
// padding, or too few uses of each packed panel), and more generally whenever A fits in L2,
// because every column block of C re-reads A and the re-reads then come from L2 anyway. B with
// strided rows is packed whole first, so it must fit in L2 as well. Measured crossover
// (docs/gemm.md): 1 MiB, the L2 of one core.
constexpr std::int64_t unpacked_path_bytes = std::int64_t{1} << 20;

// Products of sizes in double: only compared with thresholds, and free of int64 overflow for any
// sizes a caller passes.
double product_of(std::initializer_list<std::int64_t> factors) {
  double product = 1;
  for (std::int64_t factor : factors) product *= static_cast<double>(factor);
  return product;
}

template <class T>
bool takes_unpacked_path(const GemmArgs<T>& args, const Blocking& blocking, const GemmOptions& options) {
  if (!options.allow_unpacked_path || args.k == 0) return false;
  constexpr std::int64_t bytes = sizeof(T);
  // B with strided rows or stored in 16 bits is packed whole (unless it was packed ahead of
  // time); A stored in 16 bits is converted whole: each must fit in L2.
  if (args.packed_b.data == nullptr && (args.b.col_stride != 1 || args.b.storage != Storage::native) &&
      product_of({args.k, args.n + blocking.nr, bytes}) > unpacked_path_bytes)
    return false;
  if (args.a.storage != Storage::native && product_of({args.m, args.k, bytes}) > unpacked_path_bytes) return false;
  if (args.m <= blocking.mr) return true;  // one row block: B is used once, packing A cannot pay
  // One column block whose B stays in L2: each element of A is used once, and packing it cannot
  // pay either (1024x1024x16 f32 on a Zen 4: 35 GFLOP/s packed, 113 here; docs/gemm.md).
  if (args.n <= blocking.nr && product_of({args.k, blocking.nr, bytes}) <= unpacked_path_bytes) return true;
  // A whose row elements lie more than 2 KiB apart (x^T of a dense layer's input, 784 f32 a row:
  // the weight gradient) is packed when more than one column block reads it: read in place, each
  // k step's MR values sit in a line more than 2 KiB from the last step's. Packed, such products
  // took 0.71-0.90 of the time (784x256x512, 1536x16x384, 1024x128x256, 1536x128x384 f32;
  // 392x256x512 and 768x16x384 f64); at 2 KiB exactly, f64 256x128x256 took 1.08 (docs/gemm.md).
  if (std::abs(args.a.col_stride) * bytes > 2048 && args.n > blocking.nr) return false;
  return product_of({args.m, args.k, bytes}) <= unpacked_path_bytes;
}

// How a product is cut: each batch into row_parts x col_parts rectangles, aligned to the tile.
template <class T>
struct Plan {
  const GemmArgs<T>* args = nullptr;
  Blocking blocking{};
  RegionFunction<T> region_function = nullptr;
  bool unpacked_path = false;
  std::int64_t row_parts = 1, col_parts = 1;
  std::int64_t row_chunk = 0, col_chunk = 0;
};

template <class T>
void run_task(const Plan<T>& plan, std::int64_t index) {
  const GemmArgs<T>& args = *plan.args;
  const std::int64_t parts = plan.row_parts * plan.col_parts;
  const std::int64_t batch = index / parts;
  const std::int64_t part = index % parts;
  const std::int64_t row0 = (part / plan.col_parts) * plan.row_chunk;
  const std::int64_t col0 = (part % plan.col_parts) * plan.col_chunk;
  if (row0 >= args.m || col0 >= args.n) return;

  RegionProblem<T> region;
  region.m = std::min(plan.row_chunk, args.m - row0);
  region.n = std::min(plan.col_chunk, args.n - col0);
  region.k = args.k;
  region.a_storage = args.a.storage;
  region.b_storage = args.b.storage;
  if (args.k > 0) {  // with k == 0, A and B may be null and are never read
    const std::int64_t a_offset = batch * args.a.batch_stride + row0 * args.a.row_stride;
    const std::int64_t b_offset = batch * args.b.batch_stride + col0 * args.b.col_stride;
    if (args.a.storage == Storage::native) region.a = args.a.data + a_offset;
    else region.a_narrow = args.a.narrow + a_offset;
    if (args.b.storage == Storage::native) region.b = args.b.data + b_offset;
    else region.b_narrow = args.b.narrow + b_offset;
    if (args.packed_b.data != nullptr) region.b_packed = args.packed_b.data + col0 * args.k;
  }
  region.a_row_stride = args.a.row_stride;
  region.a_col_stride = args.a.col_stride;
  region.b_row_stride = args.b.row_stride;
  region.b_col_stride = args.b.col_stride;
  region.c = args.c.data + batch * args.c.batch_stride + row0 * args.c.row_stride + col0;
  region.c_row_stride = args.c.row_stride;
  const StoreStage<T>& stage = args.store_stage;
  if (stage.column_bias != nullptr)
    region.stage.bias = stage.column_bias + batch * stage.column_bias_batch_stride + col0;
  region.stage.relu = stage.activation == Activation::relu;
  region.epilogue = args.epilogue;
  region.epilogue_context = args.epilogue_context;
  for (int s = 0; s < args.epilogue_read_count; ++s) {
    const EpilogueRead& read = args.epilogue_reads[s];
    region.epilogue_reads.origin[s] = static_cast<const char*>(read.data) + batch * read.batch_stride +
                                      row0 * read.row_stride + col0 * read.element_bytes;
    region.epilogue_reads.row_stride[s] = read.row_stride;
    region.epilogue_reads.element_bytes[s] = read.element_bytes;
  }
  region.epilogue_reads.count = args.epilogue_read_count;
  region.batch = batch;
  region.row0 = row0;
  region.col0 = col0;
  region.blocking = plan.blocking;

  const std::int64_t elements = plan.unpacked_path
                                     ? detail::unpacked_workspace_elements(
                                           plan.blocking, region.n, region.k,
                                           region.b_col_stride == 1 && region.b_storage == Storage::native, sizeof(T),
                                           region.epilogue != nullptr, region.b_packed != nullptr) +
                                           (region.a_storage == Storage::native
                                                ? 0
                                                : detail::unpacked_a_copy_elements(region.m, region.k, sizeof(T)))
                                     : detail::workspace_elements<T>(plan.blocking, region.m, region.n, region.k);
  const std::int64_t scratch_elements =
      args.epilogue_consumes_c ? detail::epilogue_scratch_elements<T>(plan.blocking, plan.unpacked_path, region.k) : 0;
  const detail::WorkspaceLease workspace(static_cast<std::size_t>(scratch_elements + elements) * sizeof(T));
  region.workspace = static_cast<T*>(workspace.data()) + scratch_elements;
  if (args.epilogue_consumes_c) region.epilogue_scratch = static_cast<T*>(workspace.data());
  plan.region_function(region);
}

// Parts per batch so that the task count is a multiple of the thread count.
//
// Packed path: one rectangle per thread, cut along rows or columns to keep each task's packing
// small (A is packed once per column part, B once per row part).
//
// Unpacked path: up to `unpacked_tasks_per_thread` column parts per thread. Its column blocks are
// independent (A is re-read from L2 by every one, B is read or packed per column block), so
// finer column parts cost nothing, and the parallel-for hands tasks out one at a time: a worker
// that wakes late then delays the call by at most one small task instead of half of the product
// (the caller takes the tasks not yet started; a task already started must finish where it is).
constexpr std::int64_t unpacked_tasks_per_thread = 4;

template <class T>
void choose_parts(Plan<T>& plan, int threads) {
  const GemmArgs<T>& args = *plan.args;
  const std::int64_t row_tiles = (args.m + plan.blocking.mr - 1) / plan.blocking.mr;
  const std::int64_t col_tiles = (args.n + plan.blocking.nr - 1) / plan.blocking.nr;
  const std::int64_t wanted = threads / std::gcd<std::int64_t>(threads, args.batch);
  if (plan.unpacked_path && col_tiles >= wanted) {
    // Among 1, 2, 4 parts per thread, the one whose busiest thread gets the fewest tiles (tasks
    // are handed out in turn; parts round up to whole tiles), the finer on a tie.
    std::int64_t best_span = 0;
    for (std::int64_t per_thread = 1; per_thread <= unpacked_tasks_per_thread; per_thread *= 2) {
      const std::int64_t parts = wanted * per_thread;
      if (per_thread > 1 && (parts > col_tiles || args.batch * parts > threads * unpacked_tasks_per_thread)) break;
      const std::int64_t chunk = (col_tiles + parts - 1) / parts;
      const std::int64_t tasks = args.batch * ((col_tiles + chunk - 1) / chunk);
      const std::int64_t span = (tasks + threads - 1) / threads * chunk;
      if (best_span == 0 || span <= best_span) {
        best_span = span;
        plan.col_parts = parts;
      }
    }
    return;
  }
  double best_cost = 0;
  for (std::int64_t row_parts = 1; row_parts <= wanted; ++row_parts) {
    if (wanted % row_parts != 0) continue;
    const std::int64_t col_parts = wanted / row_parts;
    if (row_parts > row_tiles || col_parts > col_tiles) continue;
    const double cost = static_cast<double>(args.m) / row_parts + static_cast<double>(args.n) / col_parts;
    if (plan.row_parts * plan.col_parts == 1 || cost < best_cost) {
      plan.row_parts = row_parts;
      plan.col_parts = col_parts;
      best_cost = cost;
    }
  }
}

// GemmOptions::minimum_parallel_work when unset: 2^21 in f32 with 512-bit FMAs and in proportion
// to the FMA's lanes otherwise, about 10 us of one core's multiply-adds at its FMA rate (more when
// B streams from memory, as a model's weights do). MiniLM's 16-token products (2.4 M
// multiply-adds) ran on one thread under a larger one: on Zen 3 (256 bits) at a flat 2^22,
// 6.4-8.3 ms a sentence on 2 threads against 4.8-6.4 ms at 2^20 and 5.1-6.1 ms at 2^21; on an
// Intel Xeon (512 bits) at 2^22, 3.9-4.4 ms against 3.2-3.6 ms at 2^21 (docs/gemm.md).
std::int64_t default_minimum_parallel_work(int vector_bits, std::size_t element_size) {
  const auto lanes = static_cast<std::int64_t>(vector_bits) / (8 * static_cast<std::int64_t>(element_size));
  return (std::int64_t{1} << 21) / 16 * lanes;
}

template <class T>
struct ParallelRun {
  const Plan<T>* plan = nullptr;
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::exception_ptr error;

  static void task(void* context, std::int64_t index) {
    auto* run = static_cast<ParallelRun*>(context);
    if (run->failed.load(std::memory_order_relaxed)) return;
    try {
      run_task(*run->plan, index);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(run->mutex);
      if (!run->error) run->error = std::current_exception();
      run->failed.store(true, std::memory_order_relaxed);
    }
  }
};

template <class T>
void gemm_typed(const GemmArgs<T>& args, const GemmOptions& options) {
  detail::validate_arguments(args, "gemm");
  detail::validate_options(options, "gemm");
  if (args.batch == 0 || args.m == 0 || args.n == 0) return;

  const KernelFamily& family = select_family(options);
  Plan<T> plan;
  plan.args = &args;
  plan.blocking = resolve_blocking(rule_blocking<T>(family), options);
  if (args.packed_b.data != nullptr) detail::validate_packed_b(args, plan.blocking.nr, "gemm");
  plan.unpacked_path = takes_unpacked_path(args, plan.blocking, options);
  plan.region_function = plan.unpacked_path ? unpacked_function<T>(family) : packed_function<T>(family);

  const ParallelFor& parallel_for = options.parallel_for;
  const double work = product_of({args.batch, args.m, args.n, std::max<std::int64_t>(args.k, 1)});
  const std::int64_t minimum_work =
      options.minimum_parallel_work.value_or(default_minimum_parallel_work(family.vector_bits, sizeof(T)));
  const bool parallel = parallel_for.run != nullptr && parallel_for.threads > 1 &&
                        work >= static_cast<double>(minimum_work);
  if (parallel) choose_parts(plan, parallel_for.threads);
  plan.row_chunk = detail::round_up((args.m + plan.row_parts - 1) / plan.row_parts, plan.blocking.mr);
  plan.col_chunk = detail::round_up((args.n + plan.col_parts - 1) / plan.col_parts, plan.blocking.nr);
  const std::int64_t tasks = args.batch * plan.row_parts * plan.col_parts;

  if (!parallel || tasks == 1) {
    for (std::int64_t index = 0; index < tasks; ++index) run_task(plan, index);
    return;
  }
  ParallelRun<T> run;
  run.plan = &plan;
  parallel_for.run(parallel_for.context, tasks, &ParallelRun<T>::task, &run);
  if (run.error) std::rethrow_exception(run.error);
}

template <class T>
KernelInfo describe_kernel(const GemmOptions& options) {
  detail::validate_options(options, "describe_kernel");
  const KernelFamily& family = select_family(options);
  const Blocking blocking = resolve_blocking(rule_blocking<T>(family), options);
  return KernelInfo{family.instruction_set, family.vector_bits, blocking.mr, blocking.nr,
                    blocking.mc,            blocking.kc,         blocking.nc};
}

template <class T>
int pack_b_typed(const MatrixView<T>& b, std::int64_t k, std::int64_t n, const GemmOptions& options, T* destination) {
  detail::validate_options(options, "pack_b");
  detail::validate_pack_b(b, k, n, destination, "pack_b");
  const KernelFamily& family = select_family(options);
  const int panel_width = rule_blocking<T>(family).nr;
  if (k == 0 || n == 0) return panel_width;
  if constexpr (sizeof(T) == 4)
    family.float_pack_b(k, n, b.data, b.narrow, b.storage, b.row_stride, b.col_stride, destination);
  else
    family.double_pack_b(k, n, b.data, b.narrow, b.storage, b.row_stride, b.col_stride, destination);
  return panel_width;
}

}  // namespace

std::int64_t packed_b_elements(std::int64_t k, std::int64_t n, bool is_double, const GemmOptions& options) {
  detail::validate_options(options, "packed_b_elements");
  const KernelFamily& family = select_family(options);
  const std::int64_t nr = is_double ? family.double_blocking.nr : family.float_blocking.nr;
  return std::max<std::int64_t>(k, 0) * detail::round_up(std::max<std::int64_t>(n, 0), nr);
}

int pack_b(const MatrixView<float>& b, std::int64_t k, std::int64_t n, const GemmOptions& options, float* destination) {
  return pack_b_typed(b, k, n, options, destination);
}
int pack_b(const MatrixView<double>& b, std::int64_t k, std::int64_t n, const GemmOptions& options,
           double* destination) {
  return pack_b_typed(b, k, n, options, destination);
}

void gemm(const GemmArgs<float>& args, const GemmOptions& options) { gemm_typed(args, options); }
void gemm(const GemmArgs<double>& args, const GemmOptions& options) { gemm_typed(args, options); }

KernelInfo describe_float_kernel(const GemmOptions& options) { return describe_kernel<float>(options); }
KernelInfo describe_double_kernel(const GemmOptions& options) { return describe_kernel<double>(options); }

}  // namespace tensorjit::kernels
