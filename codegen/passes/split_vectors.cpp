#include "codegen/passes/split_vectors.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/MathExtras.h>

namespace tensorjit::codegen {
namespace {

using Pieces = std::vector<llvm::Value*>;

llvm::FixedVectorType* vector_type(llvm::Type* type) {
  return llvm::dyn_cast<llvm::FixedVectorType>(type);
}

bool is_mask(llvm::FixedVectorType* type) { return type->getElementType()->isIntegerTy(1); }

// A piece of `type`: `lanes` of its elements (one lane is a scalar).
llvm::Type* piece_type(llvm::FixedVectorType* type, unsigned lanes) {
  if (lanes == 1) return type->getElementType();
  return llvm::FixedVectorType::get(type->getElementType(), lanes);
}

// Lanes [first, first + lanes) of `vector` (a shufflevector, or an extractelement for one lane).
llvm::Value* take_lanes(llvm::IRBuilder<>& builder, llvm::Value* vector, unsigned first, unsigned lanes) {
  if (lanes == 1) return builder.CreateExtractElement(vector, builder.getInt64(first));
  std::vector<int> mask;
  for (unsigned lane = 0; lane < lanes; ++lane) mask.push_back(static_cast<int>(first + lane));
  return builder.CreateShuffleVector(vector, mask);
}

// The pieces joined in order into one vector (scalars by insertelement, vectors pairwise).
llvm::Value* join(llvm::IRBuilder<>& builder, Pieces pieces) {
  if (!pieces[0]->getType()->isVectorTy()) {
    auto* type = llvm::FixedVectorType::get(pieces[0]->getType(), static_cast<unsigned>(pieces.size()));
    llvm::Value* whole = llvm::PoisonValue::get(type);
    for (std::size_t lane = 0; lane < pieces.size(); ++lane)
      whole = builder.CreateInsertElement(whole, pieces[lane], builder.getInt64(lane));
    return whole;
  }
  while (pieces.size() > 1) {
    Pieces joined;
    for (std::size_t i = 0; i + 1 < pieces.size(); i += 2) {
      const unsigned lanes = vector_type(pieces[i]->getType())->getNumElements();
      std::vector<int> mask;
      for (unsigned lane = 0; lane < 2 * lanes; ++lane) mask.push_back(static_cast<int>(lane));
      joined.push_back(builder.CreateShuffleVector(pieces[i], pieces[i + 1], mask));
    }
    pieces = std::move(joined);
  }
  return pieces[0];
}

class Splitter {
 public:
  Splitter(llvm::Function& function, unsigned bits) : function_(function), bits_(bits) {}

  bool run() {
    llvm::ReversePostOrderTraversal<llvm::Function*> order(&function_);
    for (llvm::BasicBlock* block : order)
      for (auto it = block->begin(); it != block->end();) visit(*it++);  // pieces go before *it
    fill_phis();
    put_back_together();
    return !replaced_.empty();
  }

 private:
  // The lanes of a piece for `instruction`: what `bits_` holds of its widest element or, for an
  // instruction on bool vectors alone, the lanes its split operands were cut in. 0: leave it.
  unsigned piece_lanes(llvm::Instruction& instruction) const {
    unsigned widest = 0, most_lanes = 0, operand_lanes = 0;
    std::vector<unsigned> all_lanes;
    auto note = [&](llvm::Value* value) {
      auto* type = vector_type(value->getType());
      if (!type) return;
      all_lanes.push_back(type->getNumElements());
      most_lanes = std::max(most_lanes, type->getNumElements());
      if (!is_mask(type)) widest = std::max(widest, type->getScalarSizeInBits());
      if (auto found = cut_.find(value); found != cut_.end())
        operand_lanes = operand_lanes ? std::min(operand_lanes, found->second) : found->second;
    };
    note(&instruction);
    for (llvm::Value* operand : instruction.operands()) note(operand);
    const unsigned lanes = widest ? std::max(1u, bits_ / widest) : operand_lanes;
    if (lanes == 0 || lanes >= most_lanes || !llvm::isPowerOf2_32(lanes)) return 0;
    for (unsigned n : all_lanes)
      if (n > lanes && n % lanes != 0) return 0;
    return lanes;
  }

  void visit(llvm::Instruction& instruction) {
    const unsigned lanes = piece_lanes(instruction);
    if (lanes == 0) return;
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&instruction)) return split_phi(*phi, lanes);
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&instruction)) return split_load(*load, lanes);
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction)) return split_store(*store, lanes);
    if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&instruction))
      return split_shuffle(*shuffle, lanes);
    if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(&instruction))
      return split_extract(*extract, lanes);
    if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(&instruction))
      return split_insert(*insert, lanes);
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(&instruction)) return split_call(*call, lanes);
    if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&instruction)) return split_bitcast(*cast, lanes);
    if (llvm::isa<llvm::BinaryOperator, llvm::UnaryOperator, llvm::CmpInst, llvm::SelectInst,
                  llvm::CastInst, llvm::FreezeInst>(instruction))
      return split_elementwise(instruction, lanes);
  }

  // ---- pieces of a value ----

  // Where instructions that cut or re-cut `value` go: right after its definition (a split
  // instruction's own pieces were put just before it, so before it is right after them).
  llvm::Instruction* anchor(llvm::Value* value) const {
    if (auto* argument = llvm::dyn_cast<llvm::Argument>(value))
      return &*argument->getParent()->getEntryBlock().getFirstInsertionPt();
    auto* instruction = llvm::cast<llvm::Instruction>(value);
    if (llvm::isa<llvm::PHINode>(instruction)) return &*instruction->getParent()->getFirstInsertionPt();
    if (cut_.count(value)) return instruction;
    return instruction->getNextNode();
  }

  // `value` (a vector) in pieces of `lanes` lanes; `user` is where a constant's pieces may go.
  Pieces pieces_of(llvm::Value* value, unsigned lanes, llvm::Instruction* user) {
    const unsigned count = vector_type(value->getType())->getNumElements() / lanes;
    if (auto* constant = llvm::dyn_cast<llvm::Constant>(value)) {
      llvm::IRBuilder<> builder(user);  // folds to constants
      Pieces pieces;
      for (unsigned k = 0; k < count; ++k) pieces.push_back(take_lanes(builder, constant, k * lanes, lanes));
      return pieces;
    }
    if (auto found = pieces_.find({value, lanes}); found != pieces_.end()) return found->second;
    llvm::IRBuilder<> builder(anchor(value));
    Pieces pieces;
    if (auto cut = cut_.find(value); cut != cut_.end()) {
      // Re-cut the pieces it was split into.
      const unsigned from_lanes = cut->second;
      const Pieces& from = pieces_.at({value, from_lanes});
      for (unsigned k = 0; k < count; ++k) {
        const unsigned first = k * lanes;
        if (lanes < from_lanes) {
          pieces.push_back(take_lanes(builder, from[first / from_lanes], first % from_lanes, lanes));
        } else {
          Pieces parts(from.begin() + first / from_lanes, from.begin() + (first + lanes) / from_lanes);
          pieces.push_back(join(builder, std::move(parts)));
        }
      }
    } else {
      for (unsigned k = 0; k < count; ++k) pieces.push_back(take_lanes(builder, value, k * lanes, lanes));
    }
    return pieces_.emplace(std::make_pair(value, lanes), std::move(pieces)).first->second;
  }

  // `instruction` is now `pieces` of `lanes` lanes; it goes once nothing reads it whole.
  void record(llvm::Instruction& instruction, unsigned lanes, Pieces pieces) {
    pieces_[{&instruction, lanes}] = std::move(pieces);
    cut_[&instruction] = lanes;
    replaced_.push_back(&instruction);
  }

  // `instruction`, whose result is narrow, is now `value`.
  void replace(llvm::Instruction& instruction, llvm::Value* value) {
    instruction.replaceAllUsesWith(value);
    replaced_.push_back(&instruction);
  }

  // ---- one function per kind of instruction ----

  // Binary and unary operators, compares, selects, casts with equal lane counts, freeze: the
  // instruction cloned once a piece, each vector operand replaced by its piece.
  void split_elementwise(llvm::Instruction& instruction, unsigned lanes) {
    auto* type = vector_type(instruction.getType());
    if (!type) return;
    std::vector<Pieces> operands(instruction.getNumOperands());
    for (unsigned i = 0; i < instruction.getNumOperands(); ++i) {
      llvm::Value* operand = instruction.getOperand(i);
      auto* operand_type = vector_type(operand->getType());
      if (!operand_type) continue;
      if (operand_type->getNumElements() != type->getNumElements()) return;
      operands[i] = pieces_of(operand, lanes, &instruction);
    }
    Pieces pieces;
    for (unsigned k = 0; k < type->getNumElements() / lanes; ++k) {
      llvm::Instruction* piece = instruction.clone();
      for (unsigned i = 0; i < operands.size(); ++i)
        if (!operands[i].empty()) piece->setOperand(i, operands[i][k]);
      piece->mutateType(piece_type(type, lanes));
      piece->insertBefore(&instruction);
      pieces.push_back(piece);
    }
    record(instruction, lanes, std::move(pieces));
  }

  // An elementwise intrinsic (fma, fabs, smax, copysign, fptosi.sat, ...) on each piece.
  void split_call(llvm::CallInst& call, unsigned lanes) {
    const llvm::Intrinsic::ID id = call.getIntrinsicID();
    auto* type = vector_type(call.getType());
    if (id == llvm::Intrinsic::not_intrinsic || !llvm::isTriviallyVectorizable(id) || !type) return;
    std::vector<Pieces> arguments(call.arg_size());
    std::vector<llvm::Type*> overloads;
    if (llvm::isVectorIntrinsicWithOverloadTypeAtArg(id, -1)) overloads.push_back(piece_type(type, lanes));
    for (unsigned i = 0; i < call.arg_size(); ++i) {
      llvm::Value* argument = call.getArgOperand(i);
      auto* argument_type = vector_type(argument->getType());
      if (argument_type && argument_type->getNumElements() != type->getNumElements()) return;
      if (argument_type) arguments[i] = pieces_of(argument, lanes, &call);
      if (llvm::isVectorIntrinsicWithOverloadTypeAtArg(id, static_cast<int>(i)))
        overloads.push_back(argument_type ? piece_type(argument_type, lanes) : argument->getType());
    }
    llvm::Function* callee = llvm::Intrinsic::getDeclaration(call.getModule(), id, overloads);
    llvm::IRBuilder<> builder(&call);
    Pieces pieces;
    for (unsigned k = 0; k < type->getNumElements() / lanes; ++k) {
      std::vector<llvm::Value*> values;
      for (unsigned i = 0; i < call.arg_size(); ++i)
        values.push_back(arguments[i].empty() ? call.getArgOperand(i) : arguments[i][k]);
      llvm::CallInst* piece = builder.CreateCall(callee, values);
      piece->copyIRFlags(&call);
      pieces.push_back(piece);
    }
    record(call, lanes, std::move(pieces));
  }

  // A bitcast between lane counts (<8 x i64> to <16 x i32>): pieces of `bits_` bits on both sides.
  void split_bitcast(llvm::BitCastInst& cast, unsigned lanes) {
    auto* from = vector_type(cast.getSrcTy());
    auto* to = vector_type(cast.getDestTy());
    if (!from || !to) return;
    if (from->getNumElements() == to->getNumElements()) return split_elementwise(cast, lanes);
    const unsigned total = from->getNumElements() * from->getScalarSizeInBits();
    if (is_mask(from) || is_mask(to) || total % bits_ != 0) return;
    const unsigned from_lanes = bits_ / from->getScalarSizeInBits();
    const unsigned to_lanes = bits_ / to->getScalarSizeInBits();
    Pieces sources = pieces_of(cast.getOperand(0), from_lanes, &cast);
    llvm::IRBuilder<> builder(&cast);
    Pieces pieces;
    for (llvm::Value* source : sources) pieces.push_back(builder.CreateBitCast(source, piece_type(to, to_lanes)));
    record(cast, to_lanes, std::move(pieces));
  }

  void split_phi(llvm::PHINode& phi, unsigned lanes) {
    auto* type = vector_type(phi.getType());
    Pieces pieces;
    for (unsigned k = 0; k < type->getNumElements() / lanes; ++k)
      pieces.push_back(llvm::PHINode::Create(piece_type(type, lanes), phi.getNumIncomingValues(), "",
                                             phi.getIterator()));
    record(phi, lanes, std::move(pieces));
    phis_.emplace_back(&phi, lanes);
  }

  // Incoming values are known once every block has been visited (loops carry values back).
  void fill_phis() {
    for (auto [phi, lanes] : phis_) {
      const Pieces pieces = pieces_.at({phi, lanes});
      for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i) {
        llvm::BasicBlock* from = phi->getIncomingBlock(i);
        Pieces incoming = pieces_of(phi->getIncomingValue(i), lanes, from->getTerminator());
        for (std::size_t k = 0; k < pieces.size(); ++k)
          llvm::cast<llvm::PHINode>(pieces[k])->addIncoming(incoming[k], from);
      }
    }
  }

  // Loads and stores: one a piece, at its byte offset, with the vector's metadata (!nontemporal).
  static llvm::Value* piece_address(llvm::IRBuilder<>& builder, llvm::Value* address, std::uint64_t offset) {
    if (offset == 0) return address;
    return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), address, offset);
  }

  static void copy_metadata(const llvm::Instruction& from, llvm::Instruction& to) {
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> metadata;
    from.getAllMetadataOtherThanDebugLoc(metadata);
    for (const auto& [kind, node] : metadata) to.setMetadata(kind, node);
  }

  void split_load(llvm::LoadInst& load, unsigned lanes) {
    auto* type = vector_type(load.getType());
    if (!type || type->getScalarSizeInBits() % 8 != 0 || load.isVolatile() || load.isAtomic()) return;
    const std::uint64_t piece_bytes = lanes * type->getScalarSizeInBits() / 8;
    llvm::IRBuilder<> builder(&load);
    Pieces pieces;
    for (unsigned k = 0; k < type->getNumElements() / lanes; ++k) {
      const std::uint64_t offset = k * piece_bytes;
      llvm::LoadInst* piece = builder.CreateAlignedLoad(
          piece_type(type, lanes), piece_address(builder, load.getPointerOperand(), offset),
          llvm::commonAlignment(load.getAlign(), offset));
      copy_metadata(load, *piece);
      pieces.push_back(piece);
    }
    record(load, lanes, std::move(pieces));
  }

  void split_store(llvm::StoreInst& store, unsigned lanes) {
    auto* type = vector_type(store.getValueOperand()->getType());
    if (!type || type->getScalarSizeInBits() % 8 != 0 || store.isVolatile() || store.isAtomic()) return;
    const std::uint64_t piece_bytes = lanes * type->getScalarSizeInBits() / 8;
    Pieces values = pieces_of(store.getValueOperand(), lanes, &store);
    llvm::IRBuilder<> builder(&store);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::uint64_t offset = k * piece_bytes;
      llvm::StoreInst* piece = builder.CreateAlignedStore(
          values[k], piece_address(builder, store.getPointerOperand(), offset),
          llvm::commonAlignment(store.getAlign(), offset));
      copy_metadata(store, *piece);
    }
    replaced_.push_back(&store);
  }

  // Each piece of the result takes its lanes from the operands' pieces: one shufflevector of the
  // first two pieces it reads, then one more for each further piece.
  void split_shuffle(llvm::ShuffleVectorInst& shuffle, unsigned lanes) {
    auto* operand_type = vector_type(shuffle.getOperand(0)->getType());
    auto* type = vector_type(shuffle.getType());
    const unsigned n = operand_type->getNumElements();
    const unsigned in_lanes = std::min(lanes, n);
    const unsigned out_lanes = std::min(lanes, type->getNumElements());
    std::vector<Pieces> operands;
    for (llvm::Value* operand : {shuffle.getOperand(0), shuffle.getOperand(1)})
      operands.push_back(n > lanes ? pieces_of(operand, lanes, &shuffle) : Pieces{operand});
    const llvm::ArrayRef<int> mask = shuffle.getShuffleMask();
    llvm::IRBuilder<> builder(&shuffle);
    Pieces pieces;
    for (unsigned first = 0; first < type->getNumElements(); first += out_lanes) {
      // The pieces this one reads, in order of first use, and for each lane its source and lane.
      std::vector<llvm::Value*> sources;
      std::vector<std::pair<int, unsigned>> lane_source(out_lanes, {-1, 0});
      for (unsigned lane = 0; lane < out_lanes; ++lane) {
        const int element = mask[first + lane];
        if (element < 0) continue;
        const unsigned from = static_cast<unsigned>(element) % n;
        llvm::Value* source = operands[static_cast<unsigned>(element) / n][from / in_lanes];
        auto at = std::find(sources.begin(), sources.end(), source);
        if (at == sources.end()) at = sources.insert(sources.end(), source);
        lane_source[lane] = {static_cast<int>(at - sources.begin()), from % in_lanes};
      }
      if (sources.size() > 2 && in_lanes != out_lanes) return;  // no such shuffle in our kernels
      pieces.push_back(gather_lanes(builder, sources, lane_source, type, out_lanes, in_lanes));
    }
    if (pieces.size() == 1) return replace(shuffle, pieces[0]);
    record(shuffle, out_lanes, std::move(pieces));
  }

  static llvm::Value* gather_lanes(llvm::IRBuilder<>& builder, const std::vector<llvm::Value*>& sources,
                                   const std::vector<std::pair<int, unsigned>>& lane_source,
                                   llvm::FixedVectorType* type, unsigned out_lanes, unsigned in_lanes) {
    if (sources.empty()) return llvm::PoisonValue::get(piece_type(type, out_lanes));
    auto mask_for = [&](int a, int b, bool keep) {
      std::vector<int> mask(out_lanes, -1);
      for (unsigned lane = 0; lane < out_lanes; ++lane) {
        const auto [source, from] = lane_source[lane];
        if (source == a) mask[lane] = static_cast<int>(from);
        else if (source == b) mask[lane] = static_cast<int>(in_lanes + from);
        else if (keep && source >= 0 && source < b) mask[lane] = static_cast<int>(lane);
      }
      return mask;
    };
    std::vector<int> mask = mask_for(0, 1, false);
    bool identity = sources.size() == 1 && in_lanes == out_lanes;
    for (unsigned lane = 0; identity && lane < out_lanes; ++lane) identity = mask[lane] == static_cast<int>(lane);
    if (identity) return sources[0];
    llvm::Value* second = sources.size() > 1 ? sources[1] : llvm::PoisonValue::get(sources[0]->getType());
    llvm::Value* piece = builder.CreateShuffleVector(sources[0], second, mask);
    for (std::size_t s = 2; s < sources.size(); ++s)  // keep the lanes set so far, add source s
      piece = builder.CreateShuffleVector(piece, sources[s], mask_for(-1, static_cast<int>(s), true));
    return piece;
  }

  void split_extract(llvm::ExtractElementInst& extract, unsigned lanes) {
    auto* index = llvm::dyn_cast<llvm::ConstantInt>(extract.getIndexOperand());
    if (!index) return extract_at_variable_index(extract, lanes);
    const std::uint64_t element = index->getZExtValue();
    llvm::Value* piece = pieces_of(extract.getVectorOperand(), lanes, &extract)[element / lanes];
    llvm::IRBuilder<> builder(&extract);
    replace(extract, lanes == 1 ? piece : builder.CreateExtractElement(piece, builder.getInt64(element % lanes)));
  }

  // A lane chosen at run time: the pieces stored to a stack slot and the lane loaded, as the
  // backend itself does for a vector it cannot index, with the index wrapped as LLVM's is not
  // (a lane out of range is poison there, memory here).
  void extract_at_variable_index(llvm::ExtractElementInst& extract, unsigned lanes) {
    auto* type = vector_type(extract.getVectorOperand()->getType());
    if (!llvm::isPowerOf2_32(type->getNumElements()) || type->getScalarSizeInBits() % 8 != 0) return;
    const std::uint64_t piece_bytes = lanes * type->getScalarSizeInBits() / 8;
    const llvm::Align align(llvm::PowerOf2Ceil(piece_bytes));
    llvm::IRBuilder<> entry(&*function_.getEntryBlock().getFirstInsertionPt());
    llvm::AllocaInst* slot = entry.CreateAlloca(type);
    slot->setAlignment(align);
    Pieces pieces = pieces_of(extract.getVectorOperand(), lanes, &extract);
    llvm::IRBuilder<> builder(&extract);
    for (std::size_t k = 0; k < pieces.size(); ++k)
      builder.CreateAlignedStore(pieces[k], piece_address(builder, slot, k * piece_bytes),
                                 llvm::commonAlignment(align, k * piece_bytes));
    llvm::Value* index = builder.CreateAnd(
        extract.getIndexOperand(), llvm::ConstantInt::get(extract.getIndexOperand()->getType(), type->getNumElements() - 1));
    llvm::Value* address = builder.CreateInBoundsGEP(type->getElementType(), slot, index);
    replace(extract, builder.CreateLoad(type->getElementType(), address));
  }

  void split_insert(llvm::InsertElementInst& insert, unsigned lanes) {
    auto* index = llvm::dyn_cast<llvm::ConstantInt>(insert.getOperand(2));
    if (!index) return;
    const std::uint64_t element = index->getZExtValue();
    Pieces pieces = pieces_of(insert.getOperand(0), lanes, &insert);
    llvm::IRBuilder<> builder(&insert);
    llvm::Value*& piece = pieces[element / lanes];
    piece = lanes == 1 ? insert.getOperand(1)
                       : builder.CreateInsertElement(piece, insert.getOperand(1), builder.getInt64(element % lanes));
    record(insert, lanes, std::move(pieces));
  }

  // A replaced value still read by an instruction this pass leaves alone is joined back for it;
  // then the replaced instructions go.
  void put_back_together() {
    const std::set<llvm::Instruction*> gone(replaced_.begin(), replaced_.end());
    for (llvm::Instruction* old : replaced_) {
      auto cut = cut_.find(old);
      if (cut == cut_.end()) continue;
      std::vector<llvm::Use*> outside;
      for (llvm::Use& use : old->uses())
        if (!gone.count(llvm::cast<llvm::Instruction>(use.getUser()))) outside.push_back(&use);
      if (outside.empty()) continue;
      llvm::IRBuilder<> builder(anchor(old));
      llvm::Value* whole = join(builder, pieces_.at({old, cut->second}));
      for (llvm::Use* use : outside) use->set(whole);
    }
    for (llvm::Instruction* old : replaced_) old->replaceAllUsesWith(llvm::PoisonValue::get(old->getType()));
    for (llvm::Instruction* old : replaced_) old->eraseFromParent();
  }

  llvm::Function& function_;
  const unsigned bits_;
  std::map<std::pair<llvm::Value*, unsigned>, Pieces> pieces_;  // (value, lanes) -> its pieces
  std::map<llvm::Value*, unsigned> cut_;                         // split values -> their lanes
  std::vector<std::pair<llvm::PHINode*, unsigned>> phis_;
  std::vector<llvm::Instruction*> replaced_;
};

}  // namespace

bool split_vectors(llvm::Function& function, unsigned vector_bits) {
  if (function.isDeclaration()) return false;
  return Splitter(function, vector_bits).run();
}

}  // namespace tensorjit::codegen
