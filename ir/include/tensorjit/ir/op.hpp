// The op enum and its properties, generated from ops.def.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tensorjit::ir {

enum class Op : std::uint8_t {
#define TJ_OP(name, arity, category, operands, result, math) name,
#include <tensorjit/ir/ops.def>
#undef TJ_OP
};

enum class OpCategory : std::uint8_t { source, movement, unary, binary, ternary, reduce, scan, order, indexing, join, contraction };
enum class OperandKind : std::uint8_t { any, numeric, floating, integer, boolean, wide };
enum class ResultKind : std::uint8_t { same, boolean, index, word, attr };
enum class MathKind : std::uint8_t { exact, transcendental };

struct OpInfo {
  std::string_view name;
  int arity;
  OpCategory category;
  OperandKind operands;
  ResultKind result;
  MathKind math;
};

inline constexpr std::array kOpTable = {
#define TJ_OP(name, arity, category, operands, result, math) \
  OpInfo{#name, arity, OpCategory::category, OperandKind::operands, ResultKind::result, MathKind::math},
#include <tensorjit/ir/ops.def>
#undef TJ_OP
};

inline constexpr int kOpCount = static_cast<int>(kOpTable.size());
// Adding an op means adding it to ops.def and to every switch the compiler then flags; this pins the
// count so that a table indexed by Op elsewhere cannot silently fall out of step.
static_assert(kOpCount == 82, "ops.def changed: update the tables indexed by Op and this count");

constexpr const OpInfo& info(Op op) { return kOpTable[static_cast<int>(op)]; }
constexpr std::string_view op_name(Op op) { return info(op).name; }
constexpr OpCategory category(Op op) { return info(op).category; }

constexpr bool is_movement(Op op) { return category(op) == OpCategory::movement; }
// input, constant, iota: values no step needs to compute before a kernel reads them.
constexpr bool is_source(Op op) { return category(op) == OpCategory::source; }
constexpr bool is_elementwise(Op op) {
  auto c = category(op);
  return c == OpCategory::unary || c == OpCategory::binary || c == OpCategory::ternary;
}
constexpr bool is_reduce(Op op) { return category(op) == OpCategory::reduce; }
constexpr bool is_scan(Op op) { return category(op) == OpCategory::scan; }
constexpr bool is_order(Op op) { return category(op) == OpCategory::order; }
constexpr bool is_indexing(Op op) { return category(op) == OpCategory::indexing; }
constexpr bool is_join(Op op) { return category(op) == OpCategory::join; }
// Whether `count` operands suit `op` (a variadic op, arity -1, takes one or more).
constexpr bool arity_allows(Op op, std::size_t count) {
  return info(op).arity < 0 ? count >= 1 : static_cast<int>(count) == info(op).arity;
}
// A boolean result: the comparisons (eq, lt, ...) and the unary tests isnan, isinf, isfinite.
constexpr bool is_comparison(Op op) { return info(op).result == ResultKind::boolean; }
// On floating operands, evaluated by the JIT's vector math within an ulp bound (ops.def, "math").
constexpr bool is_transcendental(Op op) { return info(op).math == MathKind::transcendental; }

// The op called `name`, or nothing (the parser's lookup).
std::optional<Op> op_from_name(std::string_view name);

}  // namespace tensorjit::ir
