// The loop nest of a scan kernel (scan_kernel.hpp):
//
//   for each row piece of lines [begin, end) (lines that share every line index but the innermost):
//     offsets of the piece's first line, decoded from its row-major index once
//     strips of W = kStripRegisters x V lanes, then single registers of V lanes (both only where
//     an operand walks the lines contiguously), then single lanes:
//       acc = producer(element 0); store consumer(acc)
//       for i = 1 .. n - 1: acc = acc + producer(element i); store consumer(acc)
//
// The running sums stay in registers (a carried loop value of W lanes, which LLVM splits into W / V
// registers side by side): a sum kept in memory would add a store-to-load forward to every add of
// a single line's chain, the whole cost of a 1-D scan. Where the lines are contiguous (a scan over
// an outer axis), W lanes read W consecutive elements of each row: several registers side by side
// make each visit of a row read 512 bytes (f32 at 512 bits) rather than one line. Where no operand
// walks the lines contiguously (a scan over the last axis: each line a row), each row is scanned
// in a single lane, reading it in order: V rows side by side, one element of each per step, ran
// 7.6x slower on the rows of a 4096 x 4096 f32 (290 ms against 38 ms for the whole 1-D scan of
// as many elements, one thread, Zen 4 host): rows 16 KiB apart fall in one set of the 8-way L1,
// and 16 rows read and 16 written evict each other at every step. V = vector bits / the widest
// element type of the kernel.
#include "codegen/src/lower/lower_scan.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>

#include <tensorjit/ir/check.hpp>

#include "codegen/src/lower/counted_loop.hpp"
#include "codegen/src/lower/emit_plan.hpp"
#include "codegen/src/lower/kernel_lowering.hpp"
#include "codegen/src/lower/leaf_values.hpp"

namespace tensorjit::codegen {
namespace {

// Registers of lanes side by side when the lines are contiguous (8 x 64 bytes per row visit at
// 512 bits; the accumulators then take 8 of the 32 vector registers).
constexpr unsigned kStripRegisters = 8;

// An operand's walk along the innermost line axis and the scanned axis.
struct Operand {
  DType dtype = DType::f32;
  std::optional<IotaLeaf> iota;  // an iota leaf: computed from its address (leaf_values.hpp)
  InnerAccess access = InnerAccess::contiguous;
  llvm::Value* base = nullptr;  // the buffer's element pointer
  llvm::Value* line_stride = nullptr;
  llvm::Value* scan_stride = nullptr;
  llvm::Value* row = nullptr;   // the current row piece's first line
};

class ScanLowering : KernelLowering {
 public:
  ScanLowering(llvm::Module& module, const ScanPlan& plan, int vector_bits) : KernelLowering(module), plan_(plan) {
    std::size_t widest = itemsize(plan.accumulator_dtype);
    bool contiguous = false;
    for (const LoopPlan* part : {&plan.producer, &plan.consumer}) {
      for (DType dtype : part->input_dtypes) widest = std::max(widest, itemsize(dtype));
      for (const auto& node : part->nodes) widest = std::max(widest, itemsize(node.dtype));
    }
    for (std::size_t k = 0; k < plan.producer.access.size(); ++k)
      contiguous = contiguous || plan.producer.access[k] == InnerAccess::contiguous;
    for (std::size_t k = 1; k < plan.consumer.access.size(); ++k)
      contiguous = contiguous || plan.consumer.access[k] == InnerAccess::contiguous;
    for (InnerAccess access : plan.output_access) contiguous = contiguous || access == InnerAccess::contiguous;
    lanes_ = static_cast<unsigned>(static_cast<std::size_t>(vector_bits) / 8 / widest);
    strip_lanes_ = lanes_ * kStripRegisters;
    lanes_in_registers_ = contiguous;
  }

  void build(const std::string& symbol, int vector_bits) {
    begin_function(symbol, vector_bits);
    emit_prologue();
    emit_row_pieces();
    builder_.CreateRetVoid();
  }

 private:
  std::size_t producer_count() const { return plan_.producer.input_dtypes.size(); }
  llvm::Align align(DType dtype) const { return llvm::Align(itemsize(dtype)); }
  llvm::Type* element(DType dtype) { return memory_element_type(context_, dtype); }

  void emit_prologue() {
    line_rank_ = load_field(index_type_, offsetof(ScanArgs, line_rank), "line_rank");
    line_shape_ = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_, offsetof(ScanArgs, line_shape));
    extent_ = load_field(index_type_, offsetof(ScanArgs, extent), "extent");
    llvm::Value* inputs = load_field(builder_.getPtrTy(), offsetof(ScanArgs, inputs), "inputs");
    llvm::Value* input_strides = input_strides_ =
        load_field(builder_.getPtrTy(), offsetof(ScanArgs, input_strides), "input_strides");
    llvm::Value* outputs = load_field(builder_.getPtrTy(), offsetof(ScanArgs, outputs), "outputs");
    llvm::Value* output_strides = output_strides_ =
        load_field(builder_.getPtrTy(), offsetof(ScanArgs, output_strides), "output_strides");
    llvm::Value* innermost = builder_.CreateSub(line_rank_, index(1));
    auto operand = [&](llvm::Value* pointers, llvm::Value* strides, std::size_t k, DType dtype, InnerAccess access) {
      Operand o;
      o.dtype = dtype;
      o.access = access;
      o.base = builder_.CreateAlignedLoad(builder_.getPtrTy(),
                                          builder_.CreateConstGEP1_64(builder_.getPtrTy(), pointers, k), llvm::Align(8));
      llvm::Value* first = index(static_cast<std::int64_t>(k) * kScanStrides);
      o.line_stride = load_index(strides, builder_.CreateAdd(first, innermost), "line_stride");
      o.scan_stride = load_index(strides, builder_.CreateAdd(first, index(kMaxLoopRank)), "scan_stride");
      return o;
    };
    for (std::size_t k = 0; k < producer_count(); ++k) {
      inputs_.push_back(operand(inputs, input_strides, k, plan_.producer.input_dtypes[k], plan_.producer.access[k]));
      inputs_.back().iota = plan_.producer.input_iotas[k];
    }
    for (std::size_t k = 1; k < plan_.consumer.input_dtypes.size(); ++k) {
      inputs_.push_back(operand(inputs, input_strides, producer_count() + k - 1, plan_.consumer.input_dtypes[k],
                                plan_.consumer.access[k]));
      inputs_.back().iota = plan_.consumer.input_iotas[k];
    }
    for (std::size_t j = 0; j < plan_.output_access.size(); ++j)
      outputs_.push_back(operand(outputs, output_strides, j, plan_.consumer.nodes[plan_.consumer.outputs[j]].dtype,
                                 plan_.output_access[j]));
    inner_extent_ = load_index(line_shape_, innermost, "inner_extent");
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    offsets_ = entry.CreateAlloca(index_type_, index(static_cast<std::int64_t>(inputs_.size() + outputs_.size())),
                                  "offsets");
    rest_ = entry.CreateAlloca(index_type_, nullptr, "rest");
  }

  // Each operand's element offset of the line whose index over the outer line axes is `outer`.
  void emit_row_offsets(llvm::Value* outer) {
    const std::size_t count = inputs_.size() + outputs_.size();
    for (std::size_t k = 0; k < count; ++k)
      builder_.CreateStore(index(0), builder_.CreateConstGEP1_64(index_type_, offsets_, k));
    builder_.CreateStore(outer, rest_);
    llvm::Value* outer_rank = builder_.CreateSub(line_rank_, index(1));
    emit_counted_loop(builder_, function_, "decode", index(0), outer_rank, 1, [&](llvm::Value* step) {
      llvm::Value* axis = builder_.CreateSub(builder_.CreateSub(outer_rank, index(1)), step);
      llvm::Value* extent = load_index(line_shape_, axis, "extent");
      llvm::Value* rest = builder_.CreateLoad(index_type_, rest_);
      llvm::Value* position = builder_.CreateSRem(rest, extent);
      builder_.CreateStore(builder_.CreateSDiv(rest, extent), rest_);
      for (std::size_t k = 0; k < count; ++k) {
        const bool is_input = k < inputs_.size();
        llvm::Value* strides = is_input ? input_strides_ : output_strides_;
        const std::size_t slot = is_input ? k : k - inputs_.size();
        llvm::Value* stride = load_index(
            strides, builder_.CreateAdd(index(static_cast<std::int64_t>(slot) * kScanStrides), axis), "stride");
        llvm::Value* at = builder_.CreateConstGEP1_64(index_type_, offsets_, k);
        builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(index_type_, at), builder_.CreateMul(position, stride)), at);
      }
    });
    for (std::size_t k = 0; k < count; ++k) {
      Operand& o = k < inputs_.size() ? inputs_[k] : outputs_[k - inputs_.size()];
      o.row = builder_.CreateGEP(element(o.dtype), o.base,
                                 builder_.CreateLoad(index_type_, builder_.CreateConstGEP1_64(index_type_, offsets_, k)));
    }
  }

  // Lines [begin, end) as row pieces: the lines of one piece differ only in the innermost index.
  void emit_row_pieces() {
    llvm::BasicBlock* before = builder_.GetInsertBlock();
    llvm::BasicBlock* header = block("piece");
    llvm::BasicBlock* body = block("piece_body");
    llvm::BasicBlock* after = block("pieces_done");
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* position = builder_.CreatePHI(index_type_, 2, "line");
    position->addIncoming(begin_, before);
    builder_.CreateCondBr(builder_.CreateICmpSLT(position, end_), body, after);
    builder_.SetInsertPoint(body);
    llvm::Value* column = builder_.CreateSRem(position, inner_extent_, "column");
    llvm::Value* stop = builder_.CreateBinaryIntrinsic(
        llvm::Intrinsic::smin, inner_extent_, builder_.CreateAdd(column, builder_.CreateSub(end_, position)));
    emit_row_offsets(builder_.CreateSDiv(position, inner_extent_));
    llvm::Value* from = column;
    const std::vector<unsigned> widths =
        lanes_in_registers_ ? std::vector<unsigned>{strip_lanes_, lanes_} : std::vector<unsigned>{};
    for (unsigned lanes : widths) {
      llvm::Value* count = builder_.CreateSub(stop, from);
      llvm::Value* whole = builder_.CreateAdd(from, builder_.CreateMul(builder_.CreateSDiv(count, index(lanes)), index(lanes)));
      emit_counted_loop(builder_, function_, "lines", from, whole, lanes,
                        [&](llvm::Value* first) { emit_lines(lanes, first); });
      from = whole;
    }
    emit_counted_loop(builder_, function_, "single_lines", from, stop, 1,
                      [&](llvm::Value* first) { emit_lines(1, first); });
    position->addIncoming(builder_.CreateAdd(position, builder_.CreateSub(stop, column)), builder_.GetInsertBlock());
    builder_.CreateBr(header);
    builder_.SetInsertPoint(after);
  }

  // Operand `o` for `lanes` lines from line `column` of the row piece, at scan position `i`.
  llvm::Value* element_pointer(const Operand& o, llvm::Value* column, llvm::Value* i) {
    llvm::Value* offset = builder_.CreateAdd(builder_.CreateMul(column, o.line_stride), builder_.CreateMul(i, o.scan_stride));
    return builder_.CreateGEP(element(o.dtype), o.row, offset);
  }

  llvm::Value* load(const Operand& o, unsigned lanes, llvm::Value* column, llvm::Value* i) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    llvm::Value* pointer = element_pointer(o, column, i);
    if (o.iota) {
      const LeafSource leaf{o.dtype, o.iota};
      if (lanes == 1 || o.access == InnerAccess::broadcast) {
        llvm::Value* value = LeafReader(builder_, module_, 1).read(leaf, pointer);
        return lanes == 1 ? value : builder_.CreateVectorSplat(lanes, value);
      }
      return LeafReader(builder_, module_, lanes).read_strided(leaf, pointer, o.line_stride);
    }
    llvm::Type* type = element(o.dtype);
    if (lanes == 1) return emitter.from_memory(o.dtype, builder_.CreateAlignedLoad(type, pointer, align(o.dtype)));
    switch (o.access) {
      case InnerAccess::contiguous:
        return emitter.from_memory(
            o.dtype, builder_.CreateAlignedLoad(llvm::FixedVectorType::get(type, lanes), pointer, align(o.dtype)));
      case InnerAccess::broadcast:
        return builder_.CreateVectorSplat(
            lanes, ElementwiseEmitter(builder_, module_, 1)
                       .from_memory(o.dtype, builder_.CreateAlignedLoad(type, pointer, align(o.dtype))));
      case InnerAccess::strided: break;
    }
    // Scalar loads assembled with insertelement, as the loop kernels do: gathers are slow.
    llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(type, lanes));
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value* at = builder_.CreateGEP(type, pointer, builder_.CreateMul(index(lane), o.line_stride));
      vector = builder_.CreateInsertElement(vector, builder_.CreateAlignedLoad(type, at, align(o.dtype)), lane);
    }
    return emitter.from_memory(o.dtype, vector);
  }

  void store(const Operand& o, unsigned lanes, llvm::Value* column, llvm::Value* i, llvm::Value* value) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    llvm::Value* pointer = element_pointer(o, column, i);
    llvm::Value* stored = emitter.to_memory(o.dtype, value);
    if (lanes == 1 || o.access == InnerAccess::contiguous) {
      builder_.CreateAlignedStore(stored, pointer, align(o.dtype));
      return;
    }
    TJ_INTERNAL_CHECK(o.access == InnerAccess::strided) << "scan kernel: an output read with stride 0";
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value* at = builder_.CreateGEP(element(o.dtype), pointer, builder_.CreateMul(index(lane), o.line_stride));
      builder_.CreateAlignedStore(builder_.CreateExtractElement(stored, lane), at, align(o.dtype));
    }
  }

  // The producer's element at scan position i, in the accumulator dtype.
  llvm::Value* produce(unsigned lanes, llvm::Value* column, llvm::Value* i) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    const auto values = emit_plan_values(emitter, plan_.producer,
                                         [&](std::size_t k) { return load(inputs_[k], lanes, column, i); });
    llvm::Value* value = values[static_cast<std::size_t>(plan_.producer.outputs.front())];
    if (plan_.input_dtype == plan_.accumulator_dtype) return value;
    llvm::Value* operands[] = {value};
    return emitter.emit(ir::Op::cast, plan_.accumulator_dtype, plan_.input_dtype, operands);
  }

  void consume(unsigned lanes, llvm::Value* column, llvm::Value* i, llvm::Value* sum) {
    ElementwiseEmitter emitter(builder_, module_, lanes);
    const auto values = emit_plan_values(emitter, plan_.consumer, [&](std::size_t k) {
      return k == 0 ? sum : load(inputs_[producer_count() + k - 1], lanes, column, i);
    });
    for (std::size_t j = 0; j < outputs_.size(); ++j)
      store(outputs_[j], lanes, column, i, values[static_cast<std::size_t>(plan_.consumer.outputs[j])]);
  }

  // `lanes` lines from `column` of the row piece, each scanned in its own lane.
  void emit_lines(unsigned lanes, llvm::Value* column) {
    llvm::Value* first = produce(lanes, column, index(0));
    consume(lanes, column, index(0), first);
    emit_carried_loop("scan", "i", index(1), extent_, 1, first, [&](llvm::Value* i, llvm::Value* sum) {
      ElementwiseEmitter emitter(builder_, module_, lanes);
      llvm::Value* operands[] = {sum, produce(lanes, column, i)};
      llvm::Value* next = emitter.emit(ir::Op::add, plan_.accumulator_dtype, plan_.accumulator_dtype, operands);
      consume(lanes, column, i, next);
      return next;
    });
  }

  const ScanPlan& plan_;
  unsigned lanes_ = 1;
  unsigned strip_lanes_ = 1;
  // Whether lines share registers: only where an operand walks them contiguously (below).
  bool lanes_in_registers_ = false;
  llvm::Value* line_rank_ = nullptr;
  llvm::Value* line_shape_ = nullptr;
  llvm::Value* extent_ = nullptr;
  llvm::Value* inner_extent_ = nullptr;
  llvm::Value* input_strides_ = nullptr;
  llvm::Value* output_strides_ = nullptr;
  llvm::Value* offsets_ = nullptr;  // alloca i64[operands]
  llvm::Value* rest_ = nullptr;     // alloca i64
  std::vector<Operand> inputs_;     // producer inputs, then consumer inputs
  std::vector<Operand> outputs_;
};

}  // namespace

void build_scan_kernel(llvm::Module& module, const ScanPlan& plan, const std::string& symbol, int vector_bits) {
  ScanLowering(module, plan, vector_bits).build(symbol, vector_bits);
}

}  // namespace tensorjit::codegen
