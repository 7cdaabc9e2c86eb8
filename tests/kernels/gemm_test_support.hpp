// Shared helpers of the GEMM tests: operands in every layout, a std::thread parallel-for, and the
// bit-exact comparison of gemm() against its reference twin reference_gemm() (tolerance zero).
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tensorjit/kernels/gemm.hpp"

namespace gemm_test {

namespace tk = tensorjit::kernels;

// How an operand's elements sit in memory. Every one is read in place by the packing routines.
enum class Layout {
  row_major,        // (i, j) at i*cols + j
  column_major,     // (i, j) at i + j*rows: also "the transpose of a row-major matrix"
  strided,          // every second column of every third row of a larger array
  reversed_rows,    // row-major with a negative row stride (a flip of axis 0)
  reversed_both,    // column-major with both strides negative (a flip of both axes)
  broadcast_rows,   // one row repeated: row stride 0 (an expand / broadcast_to view)
};

inline const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::row_major: return "row_major";
    case Layout::column_major: return "column_major";
    case Layout::strided: return "strided";
    case Layout::reversed_rows: return "reversed_rows";
    case Layout::reversed_both: return "reversed_both";
    case Layout::broadcast_rows: return "broadcast_rows";
  }
  return "?";
}

inline constexpr Layout all_layouts[] = {Layout::row_major,     Layout::column_major,  Layout::strided,
                                         Layout::reversed_rows, Layout::reversed_both, Layout::broadcast_rows};

// A batch of rows x cols matrices in one buffer, with the view that reads them.
template <class T>
struct Operand {
  std::vector<T> storage;
  tk::MatrixView<T> view;
};

// batch_stride_sign: +1 batches follow each other, 0 one matrix broadcast over all batches,
// -1 batches stored in reverse order.
template <class T>
Operand<T> make_operand(std::int64_t rows, std::int64_t cols, std::int64_t batch, Layout layout, int batch_stride_sign,
                        std::mt19937& random) {
  std::int64_t row_stride = 0, col_stride = 0, span = 0, first = 0;
  switch (layout) {
    case Layout::row_major: row_stride = cols; col_stride = 1; span = rows * cols; break;
    case Layout::column_major: row_stride = 1; col_stride = rows; span = rows * cols; break;
    case Layout::strided: row_stride = 3 * 2 * cols + 1; col_stride = 2; span = rows * row_stride; break;
    case Layout::reversed_rows:
      row_stride = -cols; col_stride = 1; span = rows * cols; first = (rows - 1) * cols; break;
    case Layout::reversed_both:
      row_stride = -1; col_stride = -rows; span = rows * cols; first = rows * cols - 1; break;
    case Layout::broadcast_rows: row_stride = 0; col_stride = 1; span = cols; break;
  }
  span = std::max<std::int64_t>(span, 1);
  const std::int64_t stored_batches = batch_stride_sign == 0 ? 1 : std::max<std::int64_t>(batch, 1);
  Operand<T> operand;
  operand.storage.resize(static_cast<std::size_t>(span * stored_batches));
  std::uniform_real_distribution<T> values(T(-1), T(1));
  for (T& value : operand.storage) value = values(random);
  std::int64_t batch_first = 0;
  if (batch_stride_sign < 0) batch_first = (stored_batches - 1) * span;
  operand.view.data = operand.storage.data() + batch_first + first;
  operand.view.row_stride = row_stride;
  operand.view.col_stride = col_stride;
  operand.view.batch_stride = batch_stride_sign * span;
  return operand;
}

// A std::thread parallel-for: `threads` workers pull task indices from one counter.
struct ThreadPoolForTests {
  static void run(void* context, std::int64_t n_tasks, void (*task)(void*, std::int64_t), void* task_context) {
    const int threads = *static_cast<int*>(context);
    std::atomic<std::int64_t> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&] {
        for (std::int64_t i = next++; i < n_tasks; i = next++) task(task_context, i);
      });
    for (std::thread& worker : workers) worker.join();
  }
};

inline tk::ParallelFor parallel_for_with(int& threads) {
  tk::ParallelFor parallel_for;
  parallel_for.run = &ThreadPoolForTests::run;
  parallel_for.context = &threads;
  parallel_for.threads = threads;
  return parallel_for;
}


struct Problem {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  Layout a_layout = Layout::row_major, b_layout = Layout::row_major;
  int a_batch_sign = 1, b_batch_sign = 1;
  std::int64_t c_padding = 0;  // extra elements per row of C, which gemm must leave alone
  // gemm() reads B through panels packed ahead of time by pack_b() (GemmArgs::packed_b); needs
  // batch 1 or b_batch_sign 0. reference_gemm() still reads B.
  bool b_packed_ahead = false;
};

inline std::string describe(const Problem& p, const tk::GemmOptions& options) {
  return "m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
         " batch=" + std::to_string(p.batch) + " A " + layout_name(p.a_layout) + "/" + std::to_string(p.a_batch_sign) +
         " B " + layout_name(p.b_layout) + "/" + std::to_string(p.b_batch_sign) +
         " bits=" + std::to_string(options.vector_bits) + " isa=" + std::to_string(int(options.instruction_set)) +
         " threads=" + std::to_string(options.parallel_for.threads) + " mc=" + std::to_string(options.mc) +
         " kc=" + std::to_string(options.kc) + " nc=" + std::to_string(options.nc) +
         (p.b_packed_ahead ? " B packed ahead" : "");
}

// Everything the operands and C's layout depend on (not the options, nor whether B is packed ahead).
inline std::string problem_key(const Problem& p, std::uint32_t seed) {
  return std::to_string(p.m) + "x" + std::to_string(p.k) + "x" + std::to_string(p.n) + " batch " +
         std::to_string(p.batch) + " A " + layout_name(p.a_layout) + "/" + std::to_string(p.a_batch_sign) + " B " +
         layout_name(p.b_layout) + "/" + std::to_string(p.b_batch_sign) + " padding " + std::to_string(p.c_padding) +
         " seed " + std::to_string(seed);
}

// reference_gemm() is a scalar loop (about 30 times slower again under the sanitizers), and its
// result depends only on the problem and the operands' seed, not on the options the tests sweep:
// each distinct C is computed once per process and remembered (`key` names everything it depends
// on). The memory is bounded: past 64 Mi elements everything is forgotten and recomputed on demand.
template <class T>
const std::vector<T>& remembered_reference(const std::string& key, const std::function<std::vector<T>()>& compute) {
  static std::map<std::string, std::vector<T>> results;
  static std::size_t elements = 0;
  if (auto found = results.find(key); found != results.end()) return found->second;
  std::vector<T> result = compute();
  if (elements + result.size() > (std::size_t{64} << 20)) {
    results.clear();
    elements = 0;
  }
  elements += result.size();
  return results.emplace(key, std::move(result)).first->second;
}

// Runs gemm() and reference_gemm() on the same operands and checks that all of C, padding
// included, has identical bits. Returns true when it does.
template <class T>
bool matches_reference(const Problem& p, const tk::GemmOptions& options, std::uint32_t seed = 1) {
  std::mt19937 random(seed);
  Operand<T> a = make_operand<T>(p.m, p.k, p.batch, p.a_layout, p.a_batch_sign, random);
  Operand<T> b = make_operand<T>(p.k, p.n, p.batch, p.b_layout, p.b_batch_sign, random);
  const std::int64_t ldc = p.n + p.c_padding;
  const std::int64_t c_batch_stride = std::max<std::int64_t>(p.m * ldc, 1);
  const std::size_t c_size = static_cast<std::size_t>(c_batch_stride * std::max<std::int64_t>(p.batch, 1));
  std::vector<T> actual(c_size, std::numeric_limits<T>::quiet_NaN());

  tk::GemmArgs<T> args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.batch = p.batch;
  args.a = a.view;
  args.b = b.view;
  const std::vector<T>& expected = remembered_reference<T>(problem_key(p, seed), [&] {
    std::vector<T> c(actual);  // NaN where the padding must stay untouched
    tk::GemmArgs<T> reference_args = args;
    reference_args.c = {c.data(), ldc, c_batch_stride};
    tk::reference_gemm(reference_args);
    return c;
  });
  args.c = {actual.data(), ldc, c_batch_stride};
  std::vector<T> panels;
  if (p.b_packed_ahead) {
    panels.assign(static_cast<std::size_t>(tk::packed_b_elements(p.k, p.n, sizeof(T) == 8, options)),
                  std::numeric_limits<T>::quiet_NaN());
    args.packed_b.panel_width = tk::pack_b(b.view, p.k, p.n, options, panels.data());
    args.packed_b.data = panels.data();
  }
  tk::gemm(args, options);
  const bool same = std::memcmp(expected.data(), actual.data(), c_size * sizeof(T)) == 0;
  if (!same) {
    std::size_t first = 0;
    while (std::memcmp(&expected[first], &actual[first], sizeof(T)) == 0) ++first;
    MESSAGE("mismatch at element " << first << ": expected " << expected[first] << " got " << actual[first] << " ("
                                   << describe(p, options) << ")");
  }
  return same;
}

// The instruction sets this CPU can run, portable first.
inline std::vector<tk::InstructionSet> supported_instruction_sets() {
  std::vector<tk::InstructionSet> sets;
  for (tk::InstructionSet set : {tk::InstructionSet::portable, tk::InstructionSet::avx2, tk::InstructionSet::avx512})
    if (tk::cpu_supports(set)) sets.push_back(set);
  return sets;
}

inline constexpr int all_widths[] = {128, 256, 512};

}  // namespace gemm_test
