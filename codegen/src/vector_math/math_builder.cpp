#include "codegen/src/vector_math/math_builder.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/TargetParser/Host.h>

#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen::vector_math {
namespace {

llvm::Type* with_lanes(llvm::Type* element, unsigned lanes) {
  return lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
}

constexpr double kRoundingShifter = 0x1.8p52;     // 1.5 * 2^52: the sum's ulp is 1
constexpr double kRoundingShifterF32 = 0x1.8p23;  // the same for f32

// Kernels are compiled for the host CPU and its features (jit_engine.hpp), so the host decides
// whether vscalef, vgetexp and vgetmant exist; they do at every width and in the scalar form
// together (F and VL). `force_portable` (tests) turns them off for kernels built after it.
std::atomic<bool> portable_forced{false};

bool host_has_feature(const char* name) {
  static const auto features = llvm::sys::getHostCPUFeatures();
  auto found = features.find(name);
  return found != features.end() && found->getValue();
}

bool host_has_avx512() {
  if (portable_forced.load(std::memory_order_relaxed)) return false;
  static const bool has = host_has_feature("avx512f") && host_has_feature("avx512vl");
  return has;
}

bool host_has_avx2() {
  if (portable_forced.load(std::memory_order_relaxed)) return false;
  static const bool has = host_has_feature("avx2");
  return has;
}

// vscalef's rounding operand: the current rounding mode (round to nearest), no suppression.
constexpr std::uint32_t kCurrentRounding = 4;

// The f32 intrinsic of x86 AVX-512 F/VL at a lane count (1: the scalar form on the low lane of an
// xmm register; `scalar_source_twice` for the ss forms whose first operand supplies the upper
// lanes), with `immediate` (getmant's) where given, under a full mask and the current rounding.
llvm::Value* call_f32_avx512(llvm::IRBuilder<>& b, unsigned lanes, llvm::Intrinsic::ID scalar,
                             llvm::Intrinsic::ID x128, llvm::Intrinsic::ID x256,
                             llvm::Intrinsic::ID x512, llvm::Value* x,
                             std::optional<std::uint32_t> immediate) {
  llvm::Type* f32 = b.getFloatTy();
  if (lanes == 1) {
    llvm::Type* wide = llvm::FixedVectorType::get(f32, 4);
    llvm::Value* v = b.CreateInsertElement(llvm::Constant::getNullValue(wide), x, std::uint64_t(0));
    llvm::Value* zero = llvm::Constant::getNullValue(wide);
    std::vector<llvm::Value*> args{v, v};
    if (immediate) args.push_back(b.getInt32(*immediate));
    for (llvm::Value* arg : {zero, static_cast<llvm::Value*>(b.getInt8(0xff)),
                             static_cast<llvm::Value*>(b.getInt32(kCurrentRounding))})
      args.push_back(arg);
    return b.CreateExtractElement(b.CreateIntrinsic(scalar, {}, args), std::uint64_t(0));
  }
  llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
  std::vector<llvm::Value*> args{x};
  if (immediate) args.push_back(b.getInt32(*immediate));
  args.push_back(zero);
  if (lanes == 16) {
    args.push_back(b.getInt16(0xffff));
    args.push_back(b.getInt32(kCurrentRounding));
    return b.CreateIntrinsic(x512, {}, args);
  }
  args.push_back(b.getInt8(0xff));
  return b.CreateIntrinsic(lanes == 8 ? x256 : x128, {}, args);
}

// A private constant array in `module` (its name need not be unique: LLVM numbers repeats).
// GCC 12 pairs GlobalVariable's inline operator new (User's, with an operand count) with its
// operator delete in the constructor's cleanup and warns of a mismatch that LLVM's own classes
// define (-Wmismatched-new-delete, only in some inlining contexts: the sanitizer build).
llvm::GlobalVariable* constant_array(llvm::Module& module, llvm::ArrayType* type,
                                     llvm::ArrayRef<llvm::Constant*> values, const char* name,
                                     llvm::Align alignment) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
  auto* array = new llvm::GlobalVariable(module, type, true, llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantArray::get(type, values), name);
#pragma GCC diagnostic pop
  array->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  array->setAlignment(alignment);
  return array;
}

}  // namespace

void force_portable(bool forced) { portable_forced.store(forced, std::memory_order_relaxed); }

MathBuilder::MathBuilder(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes,
                         Evaluation evaluation)
    : builder_(builder),
      module_(module),
      lanes_(lanes),
      evaluation_(evaluation),
      real_type_(with_lanes(evaluation == Evaluation::f32 ? builder.getFloatTy()
                                                           : builder.getDoubleTy(), lanes)),
      integer_type_(with_lanes(evaluation == Evaluation::f32 ? builder.getInt32Ty()
                                                              : builder.getInt64Ty(), lanes)) {}

llvm::Value* MathBuilder::real(double value) { return llvm::ConstantFP::get(real_type_, value); }

llvm::Value* MathBuilder::formula_constant(double value) {
  return real(single_precision_source() ? static_cast<double>(static_cast<float>(value)) : value);
}

llvm::Value* MathBuilder::integer(std::int64_t value) {
  return llvm::ConstantInt::get(integer_type_, static_cast<std::uint64_t>(value), true);
}

llvm::Value* MathBuilder::fma(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
  return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {real_type_}, {a, b, c});
}

llvm::Value* MathBuilder::abs(llvm::Value* a) {
  return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
}

llvm::Value* MathBuilder::copysign(llvm::Value* magnitude, llvm::Value* sign) {
  return builder_.CreateCopySign(magnitude, sign);
}

llvm::Value* MathBuilder::truncate(llvm::Value* a) {
  return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, a);
}

llvm::Value* MathBuilder::polynomial(llvm::Value* x, std::initializer_list<double> coefficients) {
  const double* last = coefficients.end() - 1;
  llvm::Value* sum = real(*last);
  for (const double* c = last; c != coefficients.begin();) {
    --c;
    sum = fma(sum, x, real(*c));
  }
  return sum;
}

MathBuilder::Rounded MathBuilder::round_to_integer(llvm::Value* x, double scale) {
  llvm::Value* shifter = real(native_f32() ? kRoundingShifterF32 : kRoundingShifter);
  llvm::Value* shifted = scale == 1.0 ? add(x, shifter) : fma(x, real(scale), shifter);
  llvm::Value* value = sub(shifted, shifter);
  llvm::Value* integer_value = builder_.CreateSub(to_bits(shifted), to_bits(shifter));
  return {value, integer_value};
}

llvm::Value* MathBuilder::power_of_two(llvm::Value* k) {
  const bool f32 = native_f32();
  return from_bits(builder_.CreateShl(builder_.CreateAdd(k, integer(f32 ? 127 : 1023)), f32 ? 23 : 52));
}

unsigned MathBuilder::register_lanes() const {
  if (lanes_ == 1) return 1;
  const unsigned element_bits = real_type_->getScalarType()->isFloatTy() ? 32 : 64;
  // The kernel's width (module_builder.cpp sets the attribute on every kernel function).
  const llvm::Attribute legal =
      builder_.GetInsertBlock()->getParent()->getFnAttribute("min-legal-vector-width");
  unsigned legal_bits = 0;
  if (!legal.isValid() || legal.getValueAsString().getAsInteger(10, legal_bits)) return lanes_;
  return std::clamp(legal_bits / element_bits, 1u, lanes_);
}

bool MathBuilder::avx512_usable() const {
  const unsigned pieces = register_lanes();
  const unsigned bits = pieces * (real_type_->getScalarType()->isFloatTy() ? 32 : 64);
  // e.g. 16 f64 lanes of an f32 kernel evaluated in f64 at 256 bits: 4 lanes a register, fine;
  // 3 lanes or a register of 64 bits: none of these instructions.
  return host_has_avx512() &&
         (lanes_ == 1 || ((bits == 128 || bits == 256 || bits == 512) && lanes_ % pieces == 0));
}

llvm::Value* MathBuilder::per_register(
    std::initializer_list<llvm::Value*> operands,
    const std::function<llvm::Value*(llvm::ArrayRef<llvm::Value*>, unsigned)>& emit) {
  const unsigned pieces = register_lanes();
  TJ_INTERNAL_CHECK(lanes_ % pieces == 0)
      << "vector math: " << lanes_ << " lanes do not split into registers of " << pieces;
  const llvm::ArrayRef<llvm::Value*> whole(operands.begin(), operands.end());
  if (pieces == lanes_) return emit(whole, lanes_);
  std::vector<llvm::Value*> results;
  for (unsigned first = 0; first < lanes_; first += pieces) {
    std::vector<int> mask;
    for (unsigned lane = first; lane < first + pieces; ++lane)
      mask.push_back(static_cast<int>(lane));
    std::vector<llvm::Value*> piece;
    for (llvm::Value* operand : whole) piece.push_back(builder_.CreateShuffleVector(operand, mask));
    results.push_back(emit(piece, pieces));
  }
  return llvm::concatenateVectors(builder_, results);
}

llvm::Value* MathBuilder::x86_scalef(llvm::Value* p, llvm::Value* k, llvm::Value* k_real) {
  if (!avx512_usable()) return nullptr;
  const bool f32 = real_type_->getScalarType()->isFloatTy();
  auto& b = builder_;
  if (k_real == nullptr) k_real = b.CreateSIToFP(k, real_type_);
  if (lanes_ == 1) {
    // The scalar form works on the low lane of 128-bit registers.
    llvm::Type* wide = llvm::FixedVectorType::get(real_type_, f32 ? 4 : 2);
    llvm::Value* poison = llvm::PoisonValue::get(wide);
    llvm::Value* result = b.CreateIntrinsic(
        f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ss : llvm::Intrinsic::x86_avx512_mask_scalef_sd,
        {}, {b.CreateInsertElement(poison, p, std::uint64_t(0)),
             b.CreateInsertElement(poison, k_real, std::uint64_t(0)), poison, b.getInt8(0xff),
             b.getInt32(kCurrentRounding)});
    return b.CreateExtractElement(result, std::uint64_t(0));
  }
  auto scalef = [&](llvm::ArrayRef<llvm::Value*> x, unsigned lanes) -> llvm::Value* {
    llvm::Value* zero = llvm::Constant::getNullValue(x[0]->getType());
    switch (lanes * (f32 ? 32 : 64)) {
      case 128:
        return b.CreateIntrinsic(f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_128
                                     : llvm::Intrinsic::x86_avx512_mask_scalef_pd_128,
                                 {}, {x[0], x[1], zero, b.getInt8(0xff)});
      case 256:
        return b.CreateIntrinsic(f32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                                     : llvm::Intrinsic::x86_avx512_mask_scalef_pd_256,
                                 {}, {x[0], x[1], zero, b.getInt8(0xff)});
      default:  // 512
        if (f32) {
          return b.CreateIntrinsic(
              llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
              {x[0], x[1], zero, b.getInt16(0xffff), b.getInt32(kCurrentRounding)});
        }
        return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_pd_512, {},
                                 {x[0], x[1], zero, b.getInt8(0xff), b.getInt32(kCurrentRounding)});
    }
  };
  return per_register({p, k_real}, scalef);
}

MathBuilder::ExponentAndMantissa MathBuilder::x86_exponent_and_mantissa(llvm::Value* x) {
  if (!native_f32() || !avx512_usable()) return {nullptr, nullptr};
  namespace x86 = llvm::Intrinsic;
  // getmant's immediate: interval [1, 2) (bits 1:0 = 0), sign of the source (bits 3:2 = 0).
  constexpr std::uint32_t kOneToTwo = 0;
  auto exponent = [&](llvm::ArrayRef<llvm::Value*> piece, unsigned lanes) {
    return call_f32_avx512(builder_, lanes, x86::x86_avx512_mask_getexp_ss,
                           x86::x86_avx512_mask_getexp_ps_128, x86::x86_avx512_mask_getexp_ps_256,
                           x86::x86_avx512_mask_getexp_ps_512, piece[0], std::nullopt);
  };
  auto mantissa = [&](llvm::ArrayRef<llvm::Value*> piece, unsigned lanes) {
    return call_f32_avx512(builder_, lanes, x86::x86_avx512_mask_getmant_ss,
                           x86::x86_avx512_mask_getmant_ps_128, x86::x86_avx512_mask_getmant_ps_256,
                           x86::x86_avx512_mask_getmant_ps_512, piece[0], kOneToTwo);
  };
  return {per_register({x}, exponent), per_register({x}, mantissa)};
}

llvm::Value* MathBuilder::scale_by_power_of_two(llvm::Value* p, llvm::Value* k, llvm::Value* k_real) {
  if (llvm::Value* scaled = x86_scalef(p, k, k_real)) return scaled;
  if (evaluation_ == Evaluation::f64_for_f32) return mul(p, power_of_two(k));
  llvm::Value* first = builder_.CreateAShr(k, 1);
  llvm::Value* second = builder_.CreateSub(k, first);
  return mul(mul(p, power_of_two(first)), power_of_two(second));
}

llvm::Value* MathBuilder::lookup(llvm::ArrayRef<double> table, llvm::Value* index) {
  auto& b = builder_;
  const unsigned size = static_cast<unsigned>(table.size());
  TJ_INTERNAL_CHECK(size != 0 && size <= 32 && (size & (size - 1)) == 0)
      << "vector math: a table of " << size << " entries (a power of two up to 32 is needed)";
  const bool f32 = native_f32();
  // `count` entries from `first` as a constant vector, entry i mod size at position i.
  auto entries = [&](unsigned first, unsigned count) {
    std::vector<llvm::Constant*> values;
    for (unsigned i = first; i < first + count; ++i) {
      values.push_back(llvm::ConstantFP::get(real_type_->getScalarType(), table[i % size]));
    }
    return llvm::ConstantVector::get(values);
  };
  if (lanes_ > 1 && avx512_usable()) {
    return per_register({index}, [&](llvm::ArrayRef<llvm::Value*> piece, unsigned lanes) {
      const unsigned chunk = 2 * lanes;  // the entries one vpermi2 reaches
      const unsigned bits = lanes * (f32 ? 32 : 64);
      namespace x86 = llvm::Intrinsic;
      const llvm::Intrinsic::ID permute =
          bits == 512   ? (f32 ? x86::x86_avx512_vpermi2var_ps_512
                               : x86::x86_avx512_vpermi2var_pd_512)
          : bits == 256 ? (f32 ? x86::x86_avx512_vpermi2var_ps_256
                               : x86::x86_avx512_vpermi2var_pd_256)
                        : (f32 ? x86::x86_avx512_vpermi2var_ps_128
                               : x86::x86_avx512_vpermi2var_pd_128);
      // One chunk reads the index's low bits itself; several compare the entry number.
      llvm::Value* entry = piece[0];
      if (size > chunk)
        entry = b.CreateAnd(entry, llvm::ConstantInt::get(entry->getType(), size - 1));
      llvm::Value* result = nullptr;
      for (unsigned first = 0; first < std::max(size, chunk); first += chunk) {
        llvm::Value* picked = b.CreateIntrinsic(
            permute, {}, {entries(first, lanes), piece[0], entries(first + lanes, lanes)});
        result = result == nullptr
                     ? picked
                     : b.CreateSelect(
                           b.CreateICmpUGE(entry, llvm::ConstantInt::get(entry->getType(), first)),
                           picked, result);
      }
      return result;
    });
  }
  llvm::Type* element = real_type_->getScalarType();
  std::vector<llvm::Constant*> values;
  for (double value : table) values.push_back(llvm::ConstantFP::get(element, value));
  auto* array_type = llvm::ArrayType::get(element, size);
  auto* array = constant_array(module_, array_type, values, "tj_table", llvm::Align(64));
  llvm::Value* entry = b.CreateAnd(index, integer(size - 1));
  const unsigned pieces = register_lanes();
  const unsigned piece_bits = pieces * (f32 ? 32 : 64);
  if (lookups_by_permutes()) {
    // AVX2 without AVX-512: one vpermps per 8 entries, and the entry's bits 3 and 4, shifted into
    // the sign bit, pick among them (vblendvps). A gather of 8 lanes was most of W2's time on Zen 3
    // (tanh reads seven tables of 32), where it is microcoded (docs/vector_math.md).
    return per_register({entry}, [&](llvm::ArrayRef<llvm::Value*> piece, unsigned lanes) {
      std::vector<llvm::Value*> chunks;
      for (unsigned first = 0; first < std::max(size, lanes); first += lanes)
        chunks.push_back(b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_permps, {}, {entries(first, lanes), piece[0]}));
      llvm::Value* zero = llvm::Constant::getNullValue(piece[0]->getType());
      for (unsigned bit = 3; chunks.size() > 1; ++bit) {
        llvm::Value* upper = b.CreateICmpSLT(b.CreateShl(piece[0], 31 - bit), zero);
        std::vector<llvm::Value*> halved;
        for (std::size_t i = 0; i < chunks.size(); i += 2) halved.push_back(b.CreateSelect(upper, chunks[i + 1], chunks[i]));
        chunks = std::move(halved);
      }
      return chunks.front();
    });
  }
  if (lanes_ > 1 && host_has_avx2() && (piece_bits == 128 || piece_bits == 256) && lanes_ % pieces == 0) {
    // AVX2's gathers, a register at a time, take the entries as integers of the element's width.
    // A generic gather takes a vector of 64-bit pointers, twice as wide as an f32 register: at
    // 128 bits on an AVX2 host it became 256-bit address arithmetic, outside the kernel's width.
    return per_register({entry}, [&](llvm::ArrayRef<llvm::Value*> piece, unsigned lanes) {
      namespace x86 = llvm::Intrinsic;
      const llvm::Intrinsic::ID gather =
          piece_bits == 128 ? (f32 ? x86::x86_avx2_gather_d_ps : x86::x86_avx2_gather_q_pd)
                            : (f32 ? x86::x86_avx2_gather_d_ps_256 : x86::x86_avx2_gather_q_pd_256);
      auto* piece_type = llvm::FixedVectorType::get(element, lanes);
      // Every lane gathered: the mask's sign bits are all set.
      llvm::Value* all_lanes = b.CreateBitCast(
          llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b.getIntNTy(f32 ? 32 : 64), lanes)),
          piece_type);
      return b.CreateIntrinsic(gather, {},
                               {llvm::Constant::getNullValue(piece_type), array, piece[0], all_lanes,
                                b.getInt8(f32 ? 4 : 8)});
    });
  }
  llvm::Value* address = b.CreateGEP(element, array, entry);
  const llvm::Align alignment(f32 ? 4 : 8);
  if (lanes_ == 1) return b.CreateAlignedLoad(element, address, alignment);
  return b.CreateMaskedGather(real_type_, address, alignment);
}

bool MathBuilder::lookups_by_permutes() const {
  const unsigned pieces = register_lanes();
  return lanes_ > 1 && native_f32() && host_has_avx2() && !avx512_usable() && pieces * 32 == 256 &&
         lanes_ % pieces == 0;
}

bool MathBuilder::lookups_from_registers() const {
  const unsigned element_bits = real_type_->getScalarType()->isFloatTy() ? 32 : 64;
  return lanes_ == 1 || (avx512_usable() && register_lanes() * element_bits >= 256);
}

std::vector<llvm::Value*> MathBuilder::lookup_rows(llvm::ArrayRef<llvm::ArrayRef<double>> columns,
                                                llvm::Value* index) {
  auto& b = builder_;
  const auto size = static_cast<unsigned>(columns.front().size());
  TJ_INTERNAL_CHECK(size != 0 && size <= 32 && (size & (size - 1)) == 0 && lanes_ > 1)
      << "vector math: a table of " << size << " rows read by " << lanes_
      << " lanes (a power of two up to 32, and vectors, are needed)";
  const unsigned pieces = register_lanes();
  const unsigned element_bits = real_type_->getScalarType()->isFloatTy() ? 32 : 64;
  std::vector<llvm::Value*> result;
  // The rows: entry i's value of every column, padded to a power of two (one aligned load).
  unsigned width = 1;
  while (width < columns.size()) width *= 2;
  llvm::Type* element = real_type_->getScalarType();
  auto* row_type = llvm::FixedVectorType::get(element, width);
  std::vector<llvm::Constant*> rows;
  for (unsigned i = 0; i < size; ++i) {
    std::vector<llvm::Constant*> row;
    for (unsigned c = 0; c < width; ++c)
      row.push_back(llvm::ConstantFP::get(element, c < columns.size() ? columns[c][i] : 0.0));
    rows.push_back(llvm::ConstantVector::get(row));
  }
  auto* array_type = llvm::ArrayType::get(row_type, size);
  const llvm::Align row_alignment(width * element_bits / 8);
  auto* array = constant_array(module_, array_type, rows, "tj_rows", row_alignment);
  llvm::Value* entry = b.CreateAnd(index, integer(size - 1));
  // One register's lanes at a time: its rows, then each column as one shuffle of them.
  std::vector<std::vector<llvm::Value*>> column_pieces(columns.size());
  for (unsigned first = 0; first < lanes_; first += pieces) {
    std::vector<llvm::Value*> loaded;
    for (unsigned lane = first; lane < first + pieces; ++lane) {
      llvm::Value* address = b.CreateGEP(array_type, array, {b.getInt64(0), b.CreateExtractElement(entry, lane)});
      loaded.push_back(b.CreateAlignedLoad(row_type, address, row_alignment));
    }
    llvm::Value* all = llvm::concatenateVectors(b, loaded);
    for (unsigned c = 0; c < columns.size(); ++c) {
      std::vector<int> mask;
      for (unsigned lane = 0; lane < pieces; ++lane) mask.push_back(static_cast<int>(lane * width + c));
      column_pieces[c].push_back(b.CreateShuffleVector(all, mask));
    }
  }
  for (auto& piece : column_pieces)
    result.push_back(piece.size() == 1 ? piece.front() : llvm::concatenateVectors(b, piece));
  return result;
}

DoubleDouble MathBuilder::two_sum(llvm::Value* a, llvm::Value* b) {
  llvm::Value* sum = add(a, b);
  llvm::Value* b_part = sub(sum, a);
  llvm::Value* a_part = sub(sum, b_part);
  llvm::Value* error = add(sub(a, a_part), sub(b, b_part));
  return {sum, error};
}

DoubleDouble MathBuilder::fast_two_sum(llvm::Value* a, llvm::Value* b) {
  llvm::Value* sum = add(a, b);
  return {sum, sub(b, sub(sum, a))};
}

llvm::Value* MathBuilder::quotient_of_pairs(DoubleDouble n, DoubleDouble d) {
  llvm::Value* denominator = add(d.hi, d.lo);
  llvm::Value* first = div(add(n.hi, n.lo), denominator);
  llvm::Value* minus_first = neg(first);
  llvm::Value* residual = fma(minus_first, d.lo, add(fma(minus_first, d.hi, n.hi), n.lo));
  return add(first, div(residual, denominator));
}

DoubleDouble MathBuilder::two_product(llvm::Value* a, llvm::Value* b) {
  llvm::Value* product = mul(a, b);
  return {product, fma(a, b, neg(product))};
}

}  // namespace tensorjit::codegen::vector_math
