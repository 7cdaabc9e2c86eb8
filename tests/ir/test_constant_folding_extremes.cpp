// Constant folding against the interpreter on the extreme values of every dtype (issue 27, finding
// 2): for every unary and binary elementwise op of ops.def and every dtype it takes, an op of
// constants folded by canonicalize gives the same bits as the interpreter on a buffer of the same
// values (any NaN equal to any NaN: a NaN's sign and payload are not part of the contract), and the
// transcendental ops are within their documented bound of the exact value
// (codegen/vector_math_bounds.hpp, docs/vector_math.md), infinities and zeros included. Both paths
// call scalar_ops.hpp; what this pins is that no value of a tj::scalar or tj::full operand is
// worse than the JIT's, as the literal composite formulas were (f64 gelu(-7.25) folded to -0.0).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "codegen/vector_math_bounds.hpp"
#include "interpreter_testing.hpp"
#include "ir/passes/canonicalize.hpp"

namespace ir = tensorjit::ir;
namespace bounds = tensorjit::codegen::testing;
using tensorjit::DType;

namespace {

// The extremes of T, their negations, and values where an op changes regime (exp's overflow and
// underflow, softplus's threshold, shift counts, the cancelling arguments of the composites).
template <typename T> std::vector<T> extreme_values() {
  if constexpr (tensorjit::is_storage_float_v<T>) {  // f16, bf16: the float extremes, rounded
    std::vector<T> values;
    for (float value : extreme_values<float>()) values.push_back(T(value));
    for (std::uint16_t bits : {0x0001, 0x8001, 0x0400, 0x7BFF, 0x7F7F}) values.push_back(T::from_bits(bits));
    return values;
  } else {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (std::is_integral_v<T>) {
    return {T{0}, T{1}, T{-1}, T{2}, T{-2}, T{7}, T{-7}, T{31}, T{32}, T{63}, T{64},
            limits::min(), T(limits::min() + 1), limits::max(), T(limits::max() - 1)};
  } else {
    std::vector<T> magnitudes = {T(0), limits::denorm_min(), limits::min(), limits::max(),
                                 limits::infinity(), T(1), T(0.5), T(2), T(1e-30), T(1e30),
                                 T(5), T(7.25), T(20), T(20.5), T(88.7), T(101.5), T(1000)};
    if constexpr (std::is_same_v<T, double>) {
      magnitudes.insert(magnitudes.end(), {T(1e-300), T(1e300), T(38.5), T(709.8), T(745.2)});
    }
    std::vector<T> values;
    for (T magnitude : magnitudes) {
      values.push_back(magnitude);
      values.push_back(-magnitude);
    }
    values.push_back(limits::quiet_NaN());
    return values;
  }
  }
}

template <typename T> bool same_bits(T a, T b) {
  if constexpr (std::is_floating_point_v<T> || tensorjit::is_storage_float_v<T>) {
    if (std::isnan(ir::widen(a)) && std::isnan(ir::widen(b))) return true;
  }
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The value of the one constant that canonicalize folded `output` to.
template <typename R> R folded_value(const ir::NodePtr& output) {
  REQUIRE(output->op() == ir::Op::constant);
  return ir::scalar_value<R>(output->attr<ir::ConstantAttr>().value);
}

// Each output of `outputs` (ops of constants) folded, against the interpreter's elements of
// `on_buffer` (the same ops on buffers), in order.
template <typename R>
void check_folded_against_buffer(const std::vector<ir::NodePtr>& outputs, const ir::NodePtr& on_buffer) {
  const ir::Graph folded = ir::canonicalize(ir::Graph{outputs});
  const std::vector<R> expected = ir::testing::evaluate<R>(on_buffer);
  REQUIRE(expected.size() == folded.outputs.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CAPTURE(expected[i]);
    CHECK(same_bits(folded_value<R>(folded.outputs[i]), expected[i]));
  }
}

template <typename T> ir::NodePtr constant_of(T value) {
  return ir::make_constant(tensorjit::dtype_of<T>(), {}, ir::make_scalar(value));
}

// `op` on every value of T: each folded, and the interpreter's result on a buffer (of C++ type
// Result: bool for isnan, isinf and isfinite).
template <typename T, typename Result = T> void check_unary(ir::Op op) {
  const std::vector<T> values = extreme_values<T>();
  std::vector<ir::NodePtr> outputs;
  for (T value : values) outputs.push_back(ir::make_unary(op, constant_of(value)));
  const ir::NodePtr on_buffer = ir::make_unary(op, ir::testing::input<T>(values));
  check_folded_against_buffer<Result>(outputs, on_buffer);
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, Result>) {
    const double bound = bounds::ulp_bound(op, tensorjit::dtype_of<T>());
    if (bound == 0) return;
    using R = bounds::ReferenceType<T>;
    const std::vector<T> results = ir::testing::evaluate<T>(on_buffer);
    for (std::size_t i = 0; i < values.size(); ++i) {
      CAPTURE(values[i]);
      CAPTURE(results[i]);
      CHECK(bounds::ulp_error(results[i], bounds::reference<T, R>(op, R(values[i]))) <= bound);
    }
  }
}

// `op` on every pair of values of T.
template <typename T, typename Result> void check_binary(ir::Op op) {
  const std::vector<T> values = extreme_values<T>();
  std::vector<T> left, right;
  std::vector<ir::NodePtr> outputs;
  for (T a : values)
    for (T b : values) {
      left.push_back(a);
      right.push_back(b);
      outputs.push_back(ir::make_binary(op, constant_of(a), constant_of(b)));
    }
  const ir::NodePtr on_buffer =
      ir::make_binary(op, ir::testing::input<T>(left), ir::testing::input<T>(right));
  check_folded_against_buffer<Result>(outputs, on_buffer);
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, Result>) {
    const double bound = bounds::ulp_bound(op, tensorjit::dtype_of<T>());
    if (bound == 0) return;
    using R = bounds::ReferenceType<T>;
    const std::vector<T> results = ir::testing::evaluate<T>(on_buffer);
    for (std::size_t i = 0; i < left.size(); ++i) {
      CAPTURE(left[i]);
      CAPTURE(right[i]);
      CAPTURE(results[i]);
      CHECK(bounds::ulp_error(results[i], bounds::reference<T, R>(op, R(left[i]), R(right[i]))) <= bound);
    }
  }
}

// A cast of every value of From to every dtype.
template <typename From> void check_casts() {
  const std::vector<From> values = extreme_values<From>();
  for (DType to : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean, DType::f16, DType::bf16}) {
    CAPTURE(tensorjit::dtype_name(to));
    std::vector<ir::NodePtr> outputs;
    for (From value : values) outputs.push_back(ir::make_cast(constant_of(value), to));
    const ir::NodePtr on_buffer = ir::make_cast(ir::testing::input<From>(values), to);
    tensorjit::visit_dtype(to, [&](auto tag) {
      check_folded_against_buffer<typename decltype(tag)::type>(outputs, on_buffer);
    });
  }
}

// Runs `check` with the C++ type of every dtype that `op`'s operands may have.
template <typename Check> void for_each_operand_type(ir::Op op, Check check) {
  for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean, DType::f16, DType::bf16}) {
    tensorjit::visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ir::accepts_operand<T>(ir::info(op).operands)) return;
      CAPTURE(tensorjit::dtype_name(dtype));
      check(tag);
    });
  }
}

}  // namespace

TEST_CASE("constant folding: every unary and binary op on every dtype's extremes, as the interpreter") {
  for (int index = 0; index < ir::kOpCount; ++index) {
    const auto op = static_cast<ir::Op>(index);
    const ir::OpCategory kind = ir::category(op);
    if (kind != ir::OpCategory::unary && kind != ir::OpCategory::binary) continue;
    CAPTURE(ir::op_name(op));
    if (op == ir::Op::cast) {
      for_each_operand_type(op, [](auto tag) { check_casts<typename decltype(tag)::type>(); });
    } else if (kind == ir::OpCategory::unary) {
      for_each_operand_type(op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (ir::is_comparison(op)) check_unary<T, bool>(op);
        else check_unary<T>(op);
      });
    } else {
      for_each_operand_type(op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (ir::is_comparison(op)) check_binary<T, bool>(op);
        else if (ir::info(op).result == ir::ResultKind::word) check_binary<T, std::int32_t>(op);
        else check_binary<T, T>(op);
      });
    }
  }
}

// The cases, against values computed with mpmath at 50 digits from the ops.def formulas
// (the constants of scalar_ops.hpp rounded to the dtype), rounded to the dtype.
TEST_CASE("constant folding: the composite activations do not cancel") {
  auto folded64 = [](ir::Op op, double x) {
    return folded_value<double>(ir::canonicalize(ir::Graph{{ir::make_unary(op, constant_of(x))}}).outputs[0]);
  };
  auto folded32 = [](ir::Op op, float x) {
    return folded_value<float>(ir::canonicalize(ir::Graph{{ir::make_unary(op, constant_of(x))}}).outputs[0]);
  };
  CHECK(folded64(ir::Op::gelu, -7.25) == -1.5107971650372448e-12);
  CHECK(folded64(ir::Op::gelu, -5.0) == -1.433257859395967e-06);
  CHECK(folded32(ir::Op::gelu, -5.0f) == -1.43325849e-06f);
  CHECK(folded32(ir::Op::gelu_tanh, -7.25f) == -1.06319344e-16f);
  CHECK(folded32(ir::Op::silu, -101.5f) == -8.42180377e-43f);
  CHECK(folded32(ir::Op::sigmoid, -100.0f) == 3.78350585e-44f);
  CHECK(folded32(ir::Op::sigmoid, -88.75f) == 2.85999131e-39f);
  CHECK(folded64(ir::Op::softplus, -740.0) == 4.2e-322);
}
