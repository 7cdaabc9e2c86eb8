// The arithmetic the vector math emitters are written in: values of one lane count (a scalar when
// lanes == 1, else a vector), f64 with i64 bit patterns or f32 with i32 bit patterns (the
// Evaluation), over an llvm::IRBuilder.
// Every helper emits the same instructions whatever the lane count (scale_by_power_of_two: the
// same correctly rounded vscalef at each width), so a vector body, a scalar tail and any
// VECTOR_BITS compute the same bits (docs/contracts.md, contract 3). No fast-math flags; an
// FMA appears only where a helper says so (llvm.fma, one rounding), as contract 4 allows inside
// the vector math polynomials.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace tensorjit::codegen::vector_math {

// An unevaluated sum hi + lo with |lo| <= ulp(hi) / 2 (a double-double).
struct DoubleDouble {
  llvm::Value* hi;
  llvm::Value* lo;
};

// What the values are and what the result needs.
enum class Evaluation {
  f64,          // f64 values for an f64 result
  f64_for_f32,  // f64 values for an f32 result: the kernel's f32 operands widened, rounded at the end
  f32,          // f32 values (the f32 emitters of f32_functions.hpp), i32 bit patterns
};

// Tests: with `forced`, kernels built afterwards use none of the host's AVX-512 instructions
// (vscalef, vgetexp, vgetmant) but their portable equivalents, which give the same bits; a
// compiled kernel does not change (build the kernels to compare with a fresh Jit).
void force_portable(bool forced);

class MathBuilder {
 public:
  MathBuilder(llvm::IRBuilder<>& builder, llvm::Module& module, unsigned lanes,
              Evaluation evaluation);

  llvm::IRBuilder<>& ir() { return builder_; }
  llvm::Module& module() { return module_; }
  unsigned lanes() const { return lanes_; }
  // f32 results need their f64 value to about 2^-30 only (it is then rounded to f32 with an error
  // of 0.5 ulp + 2^-6): the emitters use shorter polynomials and drop double-double tails there.
  bool single_precision_source() const { return evaluation_ != Evaluation::f64; }
  bool native_f32() const { return evaluation_ == Evaluation::f32; }
  llvm::Type* real_type() const { return real_type_; }

  // Constants in every lane (`value` rounded to f32 for native f32: give f32 values there).
  llvm::Value* real(double value);
  llvm::Value* integer(std::int64_t value);
  // A constant of an op's formula (ir/scalar_ops.hpp), rounded to the source dtype as the op's
  // definition rounds it (the f32 value for an f32 kernel), then held in f64.
  llvm::Value* formula_constant(double value);

  // IEEE operations, each rounded once.
  llvm::Value* add(llvm::Value* a, llvm::Value* b) { return builder_.CreateFAdd(a, b); }
  llvm::Value* sub(llvm::Value* a, llvm::Value* b) { return builder_.CreateFSub(a, b); }
  llvm::Value* mul(llvm::Value* a, llvm::Value* b) { return builder_.CreateFMul(a, b); }
  llvm::Value* div(llvm::Value* a, llvm::Value* b) { return builder_.CreateFDiv(a, b); }
  llvm::Value* neg(llvm::Value* a) { return builder_.CreateFNeg(a); }
  llvm::Value* fma(llvm::Value* a, llvm::Value* b, llvm::Value* c);  // a*b + c, one rounding
  llvm::Value* abs(llvm::Value* a);
  llvm::Value* copysign(llvm::Value* magnitude, llvm::Value* sign);
  llvm::Value* truncate(llvm::Value* a);  // toward zero, to an integral value

  // Ordered comparisons (false when either side is NaN) and the NaN test.
  llvm::Value* less(llvm::Value* a, llvm::Value* b) { return builder_.CreateFCmpOLT(a, b); }
  llvm::Value* greater(llvm::Value* a, llvm::Value* b) { return builder_.CreateFCmpOGT(a, b); }
  llvm::Value* greater_equal(llvm::Value* a, llvm::Value* b) {
    return builder_.CreateFCmpOGE(a, b);
  }
  llvm::Value* equal(llvm::Value* a, llvm::Value* b) { return builder_.CreateFCmpOEQ(a, b); }
  llvm::Value* is_nan(llvm::Value* a) { return builder_.CreateFCmpUNO(a, a); }
  llvm::Value* select(llvm::Value* condition, llvm::Value* a, llvm::Value* b) {
    return builder_.CreateSelect(condition, a, b);
  }

  // Bit patterns.
  llvm::Value* to_bits(llvm::Value* a) { return builder_.CreateBitCast(a, integer_type_); }
  llvm::Value* from_bits(llvm::Value* i) { return builder_.CreateBitCast(i, real_type_); }

  // c[0] + x*(c[1] + x*(c[2] + ...)) by Horner's rule with one FMA per coefficient.
  llvm::Value* polynomial(llvm::Value* x, std::initializer_list<double> coefficients);

  // The integer nearest to x (ties to even) as a real and as an integer, for |x| < 2^51 (f32:
  // 2^22): x is added to 1.5 * 2^52 (2^23) so that the rounding of the sum does the rounding;
  // `scale` multiplies x first inside one FMA (x * scale rounded once to an integer).
  struct Rounded {
    llvm::Value* value;    // real
    llvm::Value* integer;  // i64 (f32: i32)
  };
  Rounded round_to_integer(llvm::Value* x, double scale = 1.0);

  // p * 2^k for an i64 k in [-2044, 2046], rounded once: two exact power-of-two factors, so that
  // results near overflow and in the subnormal range are right. For f32 sources k must lie in
  // [-1022, 1023] (one factor; the f32 range is far inside); for native f32, k (i32) in
  // [-252, 254], two factors. The first factor must leave p 2^(k >> 1) exact (p normal and well
  // inside the range), as the callers' p are. Where the host has AVX-512 (F and VL) this is one
  // vscalef (the exact p 2^k rounded once: the same bits) at 128, 256 and 512 bits and in the
  // scalar tail; `k_real`, when given, is a real whose floor is k (vscalef scales by
  // 2^floor(k_real): k itself, or exp's n/16 (f64) and n/32 (f32); saves the conversion).
  llvm::Value* scale_by_power_of_two(llvm::Value* p, llvm::Value* k, llvm::Value* k_real = nullptr);
  // 2^k for an integer k of the normal range ([-1022, 1023]; f32: [-126, 127]), exact.
  llvm::Value* power_of_two(llvm::Value* k);

  // For native f32 where the host has AVX-512 (F and VL, as vscalef): x = mantissa 2^exponent
  // with the exponent floor(log2 |x|) as an f32 (vgetexp) and the mantissa in [1, 2) with x's
  // sign (vgetmant), subnormal x included, at every width and in the scalar tail. Both nullptr
  // elsewhere: the caller takes the exponent bits itself.
  struct ExponentAndMantissa {
    llvm::Value* exponent;
    llvm::Value* mantissa;
  };
  ExponentAndMantissa x86_exponent_and_mantissa(llvm::Value* x);

  // table[index mod size] in every lane: `table` holds values of the real type (f32 values for
  // native f32) and has a power-of-two size up to 32; `index` is an integer of the integer type
  // whose low bits are read. Where the host has AVX-512 (F and VL), one vpermi2ps/vpermi2pd per
  // register and 2 * (its lanes) entries from tables held in registers (one per 512-bit register
  // for up to 32 f32 or 16 f64; selects pick the chunk); on AVX2 hosts f32 in 256-bit registers
  // by one vpermps per 8 entries and blends; elsewhere and in the scalar tail a load or gather
  // from a constant array: the table's values either way, so the same bits at every width.
  llvm::Value* lookup(llvm::ArrayRef<double> table, llvm::Value* index);
  // Whether lookup() reads its table from registers (AVX-512 at 256 and 512 bits: one vpermi2
  // reaches half the table or more) or is the scalar tail's load; elsewhere (128-bit registers,
  // where a table of 32 takes four vpermi2 and three selects, and hosts without AVX-512, where it
  // takes four vpermps and three blends, or a gather) a function of several tables at one index
  // should call lookup_rows.
  bool lookups_from_registers() const;
  // Whether lookup() takes a vpermps per 8 entries and blends (f32 at 256 bits on AVX2 hosts
  // without AVX-512): 3 instructions for 16 entries, 7 for 32.
  bool lookups_by_permutes() const;
  // lookup() of each of `columns` (tables of one size) at the same index, the same values: each
  // lane loads its entry's row of all the columns from one table of rows, and the rows are
  // shuffled into columns.
  std::vector<llvm::Value*> lookup_rows(llvm::ArrayRef<llvm::ArrayRef<double>> columns,
                                        llvm::Value* index);

  // Whether a value of lanes() lanes is several registers at the kernel's width (the loop's
  // interleaved registers), which per_register emits one by one.
  bool spans_registers() const { return register_lanes() < lanes_; }
  // `emit` on each register's lanes of `operands` (vectors of lanes_ lanes, i1 masks too), the
  // results joined: LLVM does not split an x86 intrinsic wider than its register, and a branch
  // taken per register (f32 gelu_tanh's exp path) is taken less often than one per value.
  llvm::Value* per_register(
      std::initializer_list<llvm::Value*> operands,
      const std::function<llvm::Value*(llvm::ArrayRef<llvm::Value*>, unsigned)>& emit);

  // Error-free transformations (Knuth's TwoSum, Dekker's Fast2Sum with |a| >= |b| or a == 0, and
  // the FMA product): hi is the rounded result, lo the exact error.
  DoubleDouble two_sum(llvm::Value* a, llvm::Value* b);
  DoubleDouble fast_two_sum(llvm::Value* a, llvm::Value* b);
  DoubleDouble two_product(llvm::Value* a, llvm::Value* b);

  // (n.hi + n.lo) / (d.hi + d.lo) rounded nearly once (|lo| below about a tenth of |hi| each):
  // q0 = n / d of the rounded sums, then q0 + (n.hi - q0 d.hi + n.lo - q0 d.lo) / d, the residual
  // formed by FMAs. Within about 0.5 ulp + 2^-4 ulp of the pairs' exact quotient, where one
  // rounding of each pair and of the division would leave 1.5 ulp (tan's sin / cos).
  llvm::Value* quotient_of_pairs(DoubleDouble n, DoubleDouble d);

 private:
  // Whether the AVX-512 (F, VL) instructions can be emitted at this lane count: the host has
  // them, and the lanes fill whole registers of 128, 256 or 512 bits at the kernel's width
  // (one register, or several emitted per_register).
  bool avx512_usable() const;
  // The lanes of one register at the kernel's width: lanes_, or a divisor of it when the values
  // are wider than a register (several registers' lanes emitted as one vector, which LLVM splits
  // into interleaved instructions).
  unsigned register_lanes() const;
  // p * 2^k by vscalef, or nullptr where this host or lane count has none.
  llvm::Value* x86_scalef(llvm::Value* p, llvm::Value* k, llvm::Value* k_real);

  llvm::IRBuilder<>& builder_;
  llvm::Module& module_;
  unsigned lanes_;
  Evaluation evaluation_;
  llvm::Type* real_type_;
  llvm::Type* integer_type_;
};

}  // namespace tensorjit::codegen::vector_math
