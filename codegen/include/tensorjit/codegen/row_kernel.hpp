// Row kernels: the contract between a row step (ir/passes/fuse_rows, runtime/src/row_kernel_step.cpp)
// and its lowering to LLVM IR (codegen/src/lower/lower_row.cpp). LLVM-free.
//
// A row kernel runs every phase of a row step on one row before it moves to the next, in ONE
// function, so that a row read from memory once stays in L1 across its phases (softmax: max, exp,
// sum, divide). The domain is [rows, columns]: the caller has merged the trailing (reduced) axes
// into one for every operand, and the leading (row) axes into two, [rows / inner_rows,
// inner_rows] (all but the last row axis, and the last one): row r is outer row r / inner_rows,
// inner row r % inner_rows of every input. So a value broadcast along one row axis (BERT's
// position ids, [1, tokens] expanded over the batch) is read in place.
//
// Values. Each value the kernel reads or computes is one of
//   column_input   memory, one element per column: inputs[k] + row_k + column * stride_c, where
//                  row_k = (row / inner_rows) * stride_o + (row % inner_rows) * stride_r
//                  (input_strides[3k], [3k + 1], [3k + 2], elements, any sign; `access` classes
//                  stride_c);
//   row_input      memory, one element per row: inputs[k] + row_k;
//   column_value   computed by an earlier phase, one element per column, in a row buffer: output j
//                  (contiguous [rows, columns]) when `output` >= 0, else the call's scratch row s;
//   row_value      computed by an earlier reduce phase (its result or its consumers), one element
//                  per row, held in a register; stored at outputs[j] + row when `output` >= 0.
//
// Phases, in order, each over the whole row:
//   loop    an elementwise expression over the columns; its leaves are values (column values and
//           inputs per column, row values and inputs splat) and constants; its outputs are column
//           values.
//   reduce  a reduction of a producer expression (like a loop's, one output, converted to the
//           accumulator dtype) over the row's columns, in the strict order of
//           ir/reduction_order.hpp (the row's elements in column order: blocks of kReductionBlock,
//           virtual lanes, a tree per block, blocks left to right), then a consumer expression of
//           the result (leaf `result`), row inputs and row values, one element per row; its
//           outputs are row values. So the bits are those of the reduce kernel (reduce_kernel.hpp)
//           and of the interpreter.
//   column_reduce  a sum over the rows, for each column, of a producer expression (like a reduce
//           phase's: one output, f32 or f64, its own accumulator dtype), into the virtual lanes of
//           the strict order (ir/reduction_order.hpp) over the rows: row r is element r of each
//           column's reduction, so it goes to lane r mod V of block r / kReductionBlock, and the
//           phase adds its producer's row into that lane's row of RowArgs::column_lanes[k] (k
//           counting the column_reduce phases in order), [blocks, V, columns] of the accumulator
//           dtype, element by element in the per-lane instructions of a loop phase. The caller
//           fills the lanes with the neutral value (-0.0) first, makes the rows of one lane run in
//           increasing order on one thread (RowArgs::row_step = V walks one lane of one block per
//           call), and combines the lanes afterwards: the tree per block, blocks left to right.
//           It writes no value the later phases read.
// Gathers. A phase's expression may hold gathers (loop_kernel.hpp, "Gathers", with the same
// rules): operand 0 is a leaf whose value is a `gathered` column_input, read only by gathers, its
// strides those of the gathered tensor over the domain with the indexed axis's set to 0 (so row r,
// column c is its element at index 0 along that axis), and RowArgs::gather_bounds gives that axis's
// extent and stride; operand 1, the index, is any value of the expression. An index the same
// along the row (computed from row values, row inputs, broadcast column inputs and constants
// only: take's case, one index per gathered row, as in the embedding block
// layernorm(take(word_emb, ids) + take(pos_emb, positions) + type_row)) is resolved and checked
// once per row of at least one column, in the phase's row set-up, and the phase reads whole
// vectors of the gathered row; any other index is resolved and checked per lane, one element per
// lane. An index outside [-extent, extent) is never read through (the lane reads element 0, so an
// input of extent 0 must point at one readable element with all strides 0) and is reported to
// RowArgs::fault at its position in the row-major [rows, columns] range (row * columns + column),
// keeping the earliest position the call meets; the caller throws (ir::throw_index_out_of_range).
// Every element of a loop phase gets the same per-lane instructions in the vector body and the
// scalar tail, so the bits do not depend on where a row ends, nor on how rows are split across
// calls: any split of the rows across threads gives the same bits (with column_reduce phases, any
// split that keeps each lane's rows in order on one thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tensorjit/codegen/jit.hpp>
#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/graph.hpp>

namespace tensorjit::codegen {

struct RowArgs {
  std::int64_t columns;               // the row's length (may be 0)
  const void* const* inputs;          // memory inputs (column_input and row_input values)
  const std::int64_t* input_strides;  // inputs x 3: per outer row, per inner row, per column
  std::int64_t inner_rows;            // the last row axis's extent (rows when one axis); > 0
  void* const* outputs;               // [rows, columns] for column values, [rows] for row values
  void* const* scratch;               // per scratch row: `columns` elements, this call's own
  // inputs x 2: for a gathered input, its indexed axis's extent and stride in elements; other
  // inputs' entries are not read. May be null when nothing is gathered.
  const std::int64_t* gather_bounds;
  IndexFault* fault;  // may be null when nothing is gathered
  // Read only by kernels with column_reduce phases (others run every row of [begin, end)): the
  // rows run are begin, begin + row_step, ... below end; per column_reduce phase, its lanes.
  std::int64_t row_step;
  void* const* column_lanes;
};

// Runs rows [begin, end) (every row_step-th, with column_reduce phases).
using RowFunction = void(const RowArgs* args, std::int64_t begin, std::int64_t end);

enum class RowValueKind : std::uint8_t { column_input, row_input, column_value, row_value };

struct RowValue {
  RowValueKind kind = RowValueKind::column_input;
  DType dtype = DType::f32;
  InnerAccess access = InnerAccess::contiguous;  // column_input: how the columns are read
  bool same_every_row = false;                   // column_input with row stride 0 (gamma)
  bool gathered = false;                         // column_input read only by gathers ("Gathers")
  int input = -1;    // column_input, row_input: index in RowArgs::inputs
  int output = -1;   // column_value, row_value: the output it is stored to, or -1
  int scratch = -1;  // column_value with no output: its scratch row
};

enum class RowPhaseKind : std::uint8_t { loop, reduce, column_reduce };

struct RowPhase {
  RowPhaseKind kind = RowPhaseKind::loop;
  ir::Op op = ir::Op::reduce_sum;         // reduce: the reduction (is_jit_reduction); column_reduce: reduce_sum
  ir::Graph expression;                   // loop: its outputs; reduce, column_reduce: the producer, one output
  std::vector<ir::NodePtr> inputs;        // the expression's `input` leaves
  std::vector<int> reads;                 // the value each input stands for
  std::vector<int> writes;                // loop: the column value of each output
  // reduce only:
  ir::NodePtr result;                     // the `input` leaf standing for the reduced value
  ir::Graph consumer;                     // outputs: row values
  std::vector<ir::NodePtr> consumer_inputs;
  std::vector<int> consumer_reads;        // row inputs or row values
  std::vector<int> consumer_writes;       // the row value of each consumer output
};

struct RowKernelSpec {
  std::vector<RowValue> values;
  std::vector<RowPhase> phases;
  // The column values stored to an output that no later phase reads (a row's final values) are
  // stored with non-temporal (streaming) stores in the vector loops, which write around the caches
  // (loop_kernel.hpp's LoopKernelSpec::streaming_stores has the why). Requires those outputs to be
  // 64-byte aligned and their rows to take a multiple of 64 bytes (`columns` x the dtype's size),
  // so that every row's vectors are aligned; the kernel ends with a store fence. Same bits.
  bool streaming_stores = false;
};

// Compiles (or finds in the Jit's caches) the kernel; the handle's address is a RowFunction.
KernelHandle compile_row_kernel(Jit& jit, const RowKernelSpec& spec, const DumpRequest* dump = nullptr);

}  // namespace tensorjit::codegen
