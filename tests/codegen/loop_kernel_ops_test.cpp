// Every elementwise op of ops.def, on every dtype it takes, JIT'd as a loop kernel at every vector
// width and compared bit for bit with the interpreter on the values where ops differ: NaN, +-inf,
// +-0, subnormals, huge values, INT_MIN, -1, 0, shift counts out of range, and random values.
// The transcendental ops on floats (vector math polynomials) are compared within their tolerance of
// the interpreter (vector_math_bounds.hpp); vector_math_*_test.cpp check them against exact values
// at scale.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <tensorjit/ir/scalar_ops.hpp>

#include "codegen_test_support.hpp"
#include "loop_kernel_testing.hpp"
#include "vector_math_bounds.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::make_spec;
using codegen::testing::matches_interpreter;
using tensorjit::DType;

namespace {

constexpr DType kDTypes[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean, DType::f16, DType::bf16};

template <typename T> std::vector<T> special_values() {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (tensorjit::is_storage_float_v<T>) {
    // The float cases rounded (to inf, 0 or the nearest value), and the 16-bit types' own edges:
    // subnormals, the least normal, the largest finite, a signalling NaN.
    std::vector<T> values;
    for (float value : special_values<float>()) values.push_back(T(value));
    for (std::uint16_t bits : {0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x007F, 0x0080, 0x7F7F, 0x7C01, 0x7F81})
      values.push_back(T::from_bits(bits));
    return values;
  } else if constexpr (std::is_floating_point_v<T>) {
    return {limits::quiet_NaN(), -limits::quiet_NaN(), limits::infinity(), -limits::infinity(),
            T(0), T(-0.0), limits::denorm_min(), -limits::denorm_min(), limits::min(),
            limits::max(), limits::lowest(), T(1), T(-1), T(0.5), T(-0.5), T(2), T(-3), T(20),
            T(20.5), T(-20), T(7.25), T(-7.25), T(1e-3), T(88.7), T(-104), T(710), T(2147483648.0),
            T(-2147483649.0), T(9.3e18), T(-9.3e18), T(1e30)};
  } else {
    return {limits::min(), limits::max(), T(-1), T(0), T(1), T(2), T(-2), T(3), T(-7), T(7),
            T(limits::digits), T(limits::digits + 1), T(limits::digits - 1), T(-64),
            static_cast<T>(limits::min() + 1), T(100)};
  }
}

template <typename T> T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    return rng() % 2 == 0;
  } else if constexpr (tensorjit::is_storage_float_v<T>) {
    return T(random_value<float>(rng));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::uniform_real_distribution<double>(-30.0, 30.0)(rng));
  } else {
    return static_cast<T>(std::uniform_int_distribution<int>(-70, 70)(rng));
  }
}

template <typename T> ir::NodePtr input_node(const std::vector<T>& values) {
  auto buffer = ir::Buffer::allocate(values.size() * sizeof(T));
  T* data = static_cast<T*>(buffer->data());
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return ir::make_input(std::move(buffer), tensorjit::dtype_of<T>(),
                        ir::Layout::contiguous({static_cast<std::int64_t>(values.size())}));
}

// `arity` operand columns of one dtype: every combination of special values, then random ones.
std::vector<ir::NodePtr> operand_inputs(DType dtype, int arity, std::uint64_t seed) {
  return tensorjit::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto specials = special_values<T>();
    std::mt19937_64 rng(seed);
    std::vector<std::vector<T>> columns(arity);
    if (arity == 1) {
      columns[0] = specials;
    } else {
      for (T a : specials)
        for (T b : specials) {
          columns[0].push_back(a);
          columns[1].push_back(b);
        }
    }
    for (int i = 0; i < 77; ++i)
      for (auto& column : columns) column.push_back(random_value<T>(rng));
    std::vector<ir::NodePtr> nodes;
    for (const auto& column : columns) nodes.push_back(input_node<T>(column));
    return nodes;
  });
}

bool takes(ir::Op op, DType dtype) {
  return tensorjit::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ir::accepts_operand<T>(ir::info(op).operands);
  });
}

ir::NodePtr build_op(ir::Op op, DType dtype, DType cast_target, std::uint64_t seed) {
  const int arity = ir::info(op).arity;
  if (op == ir::Op::where) {
    auto values = operand_inputs(dtype, 2, seed);
    std::mt19937_64 rng(seed + 1);
    std::vector<bool> flags;
    for (std::int64_t i = 0; i < values[0]->numel(); ++i) flags.push_back(rng() % 2 == 0);
    auto condition = input_node<bool>(flags);
    return ir::Node::make(op, {condition, values[0], values[1]});
  }
  auto operands = operand_inputs(dtype, arity, seed);
  if (op == ir::Op::cast) return ir::make_cast(operands[0], cast_target);
  return ir::Node::make(op, operands);
}

// A vector math op's kernel against the interpreter: each element within the op's tolerance of
// the interpreter (vector_math_bounds.hpp).
void check_vector_math_op(codegen::Jit& jit, const ir::Graph& graph, ir::Op op, DType dtype) {
  const auto spec = make_spec(graph);
  const ir::Shape& domain = graph.outputs[0]->shape();
  const auto actual = codegen::testing::run_loop_kernel(*compile_loop_kernel(jit, spec), spec, domain);
  const auto expected = codegen::testing::contiguous_bytes(ir::interpret(graph)[0]);
  std::vector<std::vector<unsigned char>> operands;
  for (const auto& input : spec.inputs) {
    const auto& attr = input->attr<ir::InputAttr>();
    operands.push_back(codegen::testing::contiguous_bytes(ir::Value{attr.buffer, attr.dtype, attr.layout}));
  }
  tensorjit::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      auto element = [](const std::vector<unsigned char>& bytes, std::size_t i) {
        T value;
        std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
        return value;
      };
      for (std::size_t i = 0; i < expected.size() / sizeof(T); ++i) {
        const T x = element(operands[0], i);
        const T y = operands.size() > 1 ? element(operands[1], i) : T(0);
        const T got = element(actual[0], i);
        const T want = element(expected, i);
        if (!codegen::testing::acceptable_result(op, got, want)) {
          CAPTURE(x);
          CAPTURE(y);
          CAPTURE(got);
          CAPTURE(want);
          CHECK(codegen::testing::acceptable_result(op, got, want));
        }
      }
    }
  });
}

}  // namespace

TEST_CASE("every elementwise op on every dtype it takes matches the interpreter at every width") {
  for (int bits : codegen::kVectorBitsChoices) {
    CAPTURE(bits);
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    for (int index = 0; index < ir::kOpCount; ++index) {
      const auto op = static_cast<ir::Op>(index);
      if (!ir::is_elementwise(op)) continue;
      for (DType dtype : kDTypes) {
        if (!takes(op, dtype)) continue;
        const std::vector<DType> targets =
            op == ir::Op::cast ? std::vector<DType>(std::begin(kDTypes), std::end(kDTypes))
                               : std::vector<DType>{dtype};
        for (DType target : targets) {
          CAPTURE(ir::op_name(op));
          CAPTURE(tensorjit::dtype_name(dtype));
          CAPTURE(tensorjit::dtype_name(target));
          ir::Graph graph{{build_op(op, dtype, target, 1000 + index)}};
          if (codegen::testing::vector_math_bound(op) != nullptr && is_floating(dtype)) {
            check_vector_math_op(jit, graph, op, dtype);
          } else {
            CHECK(matches_interpreter(jit, make_spec(graph)));
          }
        }
      }
    }
  }
}
