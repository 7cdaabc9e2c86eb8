// canonicalize: each rule, the identities it must not apply (x + 0.0 for floats), constant folding,
// CSE, and on random graphs over random data (NaN, -0, inf, INT_MIN...) the same bits as before.
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>

#include "ir/passes/canonicalize.hpp"
#include "ir/random_graph.hpp"

namespace ir = tensorjit::ir;
using tensorjit::DType;

namespace {

std::string graph_text(const std::string& lines, const std::string& outputs) {
  return fmt::format("graph {{\n{}  outputs {}\n}}\n", lines, outputs);
}

// The text of canonicalize(parse(the graph of `lines`)), verified.
std::string canonical_text(const std::string& lines, const std::string& outputs) {
  ir::Graph graph = ir::canonicalize(ir::parse(graph_text(lines, outputs)));
  ir::verify(graph);
  return ir::print(graph);
}

const std::string kInputF32 = "  %0 = input f32[3] strides=[1] offset=0\n";
const std::string kInputI32 = "  %0 = input i32[3] strides=[1] offset=0\n";
const std::string kInputBool = "  %0 = input bool[3] strides=[1] offset=0\n";

// `input` followed by `%1 = constant <type> value=<value>` and `%2 = <op> <type> <operands>`.
std::string with_constant(const std::string& input, const std::string& type, const std::string& value,
                          const std::string& op, const std::string& operands) {
  return fmt::format("{}  %1 = constant {} value={}\n  %2 = {} {} {}\n", input, type, value, op,
                     type, operands);
}

// Each element of a value as its raw bits, in row-major order.
std::vector<std::uint64_t> element_bits(const ir::Value& value) {
  const auto& layout = value.layout;
  std::int64_t count = 1;
  for (auto extent : layout.shape) count *= extent;
  std::size_t size = tensorjit::itemsize(value.dtype);
  std::vector<std::uint64_t> bits;
  for (std::int64_t linear = 0; linear < count; ++linear) {
    std::int64_t offset = layout.offset;
    std::int64_t rest = linear;
    for (std::size_t axis = layout.shape.size(); axis-- > 0;) {
      offset += (rest % layout.shape[axis]) * layout.strides[axis];
      rest /= layout.shape[axis];
    }
    std::uint64_t element = 0;
    std::memcpy(&element, static_cast<const char*>(value.buffer->data()) + offset * size, size);
    // Every NaN as one: the sign and payload of a NaN an invalid operation makes are not part of
    // the contract (docs/contracts.md), and a folded constant may carry another than the
    // interpreter's (gelu(log(-x)) folded to -nan where the interpreter gave +nan).
    if (value.dtype == DType::f32 && (element & 0x7fffffffu) > 0x7f800000u) element = 0x7fc00000u;
    if (value.dtype == DType::f64 && (element & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
      element = 0x7ff8000000000000ull;
    bits.push_back(element);
  }
  return bits;
}

// An input of shape [count] holding every edge case of `dtype` (NaN, -NaN, +-inf, -0.0,
// subnormals, INT_MIN, -1, ...) and then random values.
ir::NodePtr special_input(DType dtype, std::int64_t count, std::mt19937_64& rng) {
  auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(count) * tensorjit::itemsize(dtype));
  tensorjit::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using limits = std::numeric_limits<T>;
    std::vector<T> values;
    if constexpr (tensorjit::is_storage_float_v<T>) {
      for (float v : {INFINITY, -INFINITY, -0.0f, 0.0f, 65504.0f, 1e-7f, 1.0f, -1.0f, 0.5f, 2.0f, -3.0f, NAN})
        values.push_back(T(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      values = {limits::quiet_NaN(), -limits::quiet_NaN(), limits::infinity(), -limits::infinity(),
                T(-0.0), T(0.0), limits::denorm_min(), -limits::denorm_min(), limits::min(),
                limits::max(), limits::lowest(), T(1), T(-1), T(0.5), T(2), T(-3)};
    } else if constexpr (std::is_same_v<T, bool>) {
      values = {false, true};
    } else {
      values = {limits::min(), limits::max(), T(-1), T(0), T(1), T(2), T(-3), T(limits::min() + 1)};
    }
    auto* data = static_cast<T*>(buffer->data());
    for (std::int64_t i = 0; i < count; ++i) {
      data[i] = i < static_cast<std::int64_t>(values.size())
                    ? values[i]
                    : tensorjit::testing::random_element<T>(rng, true);
    }
  });
  return ir::make_input(std::move(buffer), dtype, ir::Layout::contiguous({count}));
}

// Interprets `outputs` before and after canonicalize and checks every bit of every output.
void check_same_bits(const std::vector<ir::NodePtr>& outputs) {
  ir::Graph graph{outputs};
  ir::Graph canonical = ir::canonicalize(graph);
  INFO("before:\n", ir::print(graph), "after:\n", ir::print(canonical));
  auto expected = ir::interpret(graph);
  auto got = ir::interpret(canonical);
  REQUIRE(got.size() == expected.size());
  for (std::size_t output = 0; output < got.size(); ++output) {
    CHECK(got[output].dtype == expected[output].dtype);
    CHECK(element_bits(got[output]) == element_bits(expected[output]));
  }
}

}  // namespace

TEST_SUITE("ir") {

TEST_CASE("canonicalize: every rewrite keeps the bits of every edge-case value") {
  std::mt19937_64 rng(77);
  constexpr std::int64_t kCount = 40;
  const DType all_dtypes[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean};
  for (DType dtype : all_dtypes) {
    INFO("dtype ", tensorjit::dtype_name(dtype));
    auto x = special_input(dtype, kCount, rng);
    auto other = special_input(dtype, kCount, rng);
    for (DType middle : all_dtypes) {
      check_same_bits({ir::make_cast(ir::make_cast(x, middle), dtype), ir::make_cast(x, dtype)});
    }
    auto condition = ir::make_cast(other, DType::boolean);
    check_same_bits({ir::Node::make(ir::Op::where, {condition, x, x}),
                     ir::Node::make(ir::Op::where, {ir::make_constant(DType::boolean, {kCount}, ir::Scalar::of_int(DType::boolean, 1)), x, other})});
    if (tensorjit::is_bool(dtype)) {
      auto not_x = ir::make_unary(ir::Op::logical_not, x);
      check_same_bits({ir::make_unary(ir::Op::logical_not, not_x),
                       ir::make_binary(ir::Op::logical_and, x, x), ir::make_binary(ir::Op::logical_or, x, x)});
      continue;
    }
    auto negated = ir::make_unary(ir::Op::neg, x);
    check_same_bits({ir::make_unary(ir::Op::neg, negated), ir::make_unary(ir::Op::abs, negated),
                     ir::make_unary(ir::Op::abs, ir::make_unary(ir::Op::abs, x))});
    for (ir::Op op : {ir::Op::add, ir::Op::sub, ir::Op::mul, ir::Op::div, ir::Op::mod, ir::Op::pow,
                      ir::Op::maximum, ir::Op::minimum}) {
      INFO("op ", ir::op_name(op));
      check_same_bits({ir::make_binary(op, x, x)});
      for (double value : {0.0, -0.0, 1.0, -1.0, 2.0}) {
        INFO("constant ", value);
        auto constant = ir::make_constant(dtype, {kCount}, ir::Scalar::of(dtype, value));
        check_same_bits({ir::make_binary(op, x, constant), ir::make_binary(op, constant, x)});
      }
    }
    if (tensorjit::is_integer(dtype)) {
      for (ir::Op op : {ir::Op::bitwise_and, ir::Op::bitwise_or, ir::Op::bitwise_xor}) {
        check_same_bits({ir::make_binary(op, x, x)});
      }
    }
  }
}

TEST_CASE("canonicalize: multiplicative and additive identities") {
  const std::string x_only = graph_text(kInputF32, "%0");
  const std::string xi_only = graph_text(kInputI32, "%0");
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "1", "mul", "%0, %1"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "1", "mul", "%1, %0"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "1", "div", "%0, %1"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "-0", "add", "%0, %1"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "-0", "add", "%1, %0"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputF32, "f32[3]", "0", "sub", "%0, %1"), "%2") == x_only);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "0", "add", "%0, %1"), "%2") == xi_only);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "0", "add", "%1, %0"), "%2") == xi_only);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "0", "sub", "%0, %1"), "%2") == xi_only);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "1", "mul", "%0, %1"), "%2") == xi_only);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "1", "div", "%0, %1"), "%2") == xi_only);
  const std::string zeros = graph_text("  %0 = constant i32[3] value=0\n", "%0");
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "0", "mul", "%0, %1"), "%2") == zeros);
  CHECK(canonical_text(with_constant(kInputI32, "i32[3]", "0", "mul", "%1, %0"), "%2") == zeros);
  CHECK(canonical_text(kInputI32 + "  %1 = sub i32[3] %0, %0\n", "%1") == zeros);
  CHECK(canonical_text(kInputI32 + "  %1 = bitwise_xor i32[3] %0, %0\n", "%1") == zeros);
}

TEST_CASE("canonicalize: identities that IEEE arithmetic does not have are kept") {
  // x + 0.0 is 0.0 for x = -0.0; x - (-0.0) is x + 0.0; x * 0 is NaN for inf and -0.0 for x < 0;
  // x - x is NaN for inf; x * -1 keeps a NaN's sign where -x flips it.
  for (const auto& [value, op, operands] :
       {std::tuple{"0", "add", "%0, %1"}, std::tuple{"0", "add", "%1, %0"},
        std::tuple{"-0", "sub", "%0, %1"}, std::tuple{"0", "mul", "%0, %1"},
        std::tuple{"-1", "mul", "%0, %1"}, std::tuple{"-0", "mul", "%0, %1"},
        std::tuple{"-1", "div", "%0, %1"}}) {
    auto lines = with_constant(kInputF32, "f32[3]", value, op, operands);
    INFO(lines);
    CHECK(canonical_text(lines, "%2") == ir::print(ir::parse(graph_text(lines, "%2"))));
  }
  auto keep = [](const std::string& lines, const std::string& outputs) {
    INFO(lines);
    CHECK(canonical_text(lines, outputs) == ir::print(ir::parse(graph_text(lines, outputs))));
  };
  keep(kInputF32 + "  %1 = sub f32[3] %0, %0\n", "%1");
  keep(kInputF32 + "  %1 = eq bool[3] %0, %0\n", "%1");
  // Casts that lose information are not undone.
  keep("  %0 = input f64[3] strides=[1] offset=0\n  %1 = cast f32[3] %0\n  %2 = cast f64[3] %1\n", "%2");
  keep("  %0 = input i64[3] strides=[1] offset=0\n  %1 = cast f64[3] %0\n  %2 = cast i64[3] %1\n", "%2");
  keep(kInputI32 + "  %1 = cast f32[3] %0\n  %2 = cast i32[3] %1\n", "%2");
  // Sums over no axes, copies and reshapes that change the shape stay.
  keep(kInputF32 + "  %1 = reduce_sum f32[3] %0 axes=[] keepdims=false mode=strict\n", "%1");
  keep(kInputF32 + "  %1 = copy f32[3] %0\n", "%1");
}

TEST_CASE("canonicalize: unary, logical and selection rules") {
  const std::string x_only = graph_text(kInputF32, "%0");
  CHECK(canonical_text(kInputF32 + "  %1 = neg f32[3] %0\n  %2 = neg f32[3] %1\n", "%2") == x_only);
  CHECK(canonical_text(kInputI32 + "  %1 = neg i32[3] %0\n  %2 = neg i32[3] %1\n", "%2") ==
        graph_text(kInputI32, "%0"));
  const std::string absolute = graph_text(kInputF32 + "  %1 = abs f32[3] %0\n", "%1");
  CHECK(canonical_text(kInputF32 + "  %1 = abs f32[3] %0\n  %2 = abs f32[3] %1\n", "%2") == absolute);
  CHECK(canonical_text(kInputF32 + "  %1 = neg f32[3] %0\n  %2 = abs f32[3] %1\n", "%2") == absolute);
  CHECK(canonical_text(kInputBool + "  %1 = logical_not bool[3] %0\n  %2 = logical_not bool[3] %1\n",
                       "%2") == graph_text(kInputBool, "%0"));
  for (const char* op : {"maximum", "minimum"}) {
    CHECK(canonical_text(kInputF32 + fmt::format("  %1 = {} f32[3] %0, %0\n", op), "%1") == x_only);
  }
  for (const char* op : {"logical_and", "logical_or"}) {
    CHECK(canonical_text(kInputBool + fmt::format("  %1 = {} bool[3] %0, %0\n", op), "%1") ==
          graph_text(kInputBool, "%0"));
  }
  for (const char* op : {"bitwise_and", "bitwise_or"}) {
    CHECK(canonical_text(kInputI32 + fmt::format("  %1 = {} i32[3] %0, %0\n", op), "%1") ==
          graph_text(kInputI32, "%0"));
  }
  const std::string two_inputs = kInputF32 + "  %1 = input f32[3] strides=[1] offset=0\n";
  CHECK(canonical_text(two_inputs + "  %2 = gt bool[3] %0, %1\n  %3 = where f32[3] %2, %1, %1\n",
                       "%3") == graph_text(kInputF32, "%0"));
  CHECK(canonical_text(two_inputs + "  %2 = constant bool[3] value=true\n"
                                    "  %3 = where f32[3] %2, %0, %1\n", "%3") == x_only);
  CHECK(canonical_text(two_inputs + "  %2 = constant bool[3] value=false\n"
                                    "  %3 = where f32[3] %2, %1, %0\n", "%3") == x_only);
}

TEST_CASE("canonicalize: casts") {
  CHECK(canonical_text(kInputF32 + "  %1 = cast f32[3] %0\n", "%1") == graph_text(kInputF32, "%0"));
  CHECK(canonical_text(kInputF32 + "  %1 = cast f64[3] %0\n  %2 = cast f32[3] %1\n", "%2") ==
        graph_text(kInputF32, "%0"));
  for (const char* middle : {"i64", "f64"}) {
    CHECK(canonical_text(kInputI32 + fmt::format("  %1 = cast {}[3] %0\n  %2 = cast i32[3] %1\n", middle),
                         "%2") == graph_text(kInputI32, "%0"));
  }
  for (const char* middle : {"f32", "f64", "i32", "i64"}) {
    CHECK(canonical_text(kInputBool + fmt::format("  %1 = cast {}[3] %0\n  %2 = cast bool[3] %1\n", middle),
                         "%2") == graph_text(kInputBool, "%0"));
  }
}

TEST_CASE("canonicalize: views compose and identity views vanish") {
  const std::string input = "  %0 = input f32[2, 3, 5] strides=[15, 5, 1] offset=0\n";
  const std::string x_only = graph_text(input, "%0");
  CHECK(canonical_text(input + "  %1 = reshape f32[2, 3, 5] %0 shape=[2, 3, 5]\n", "%1") == x_only);
  CHECK(canonical_text(input + "  %1 = reshape f32[6, 5] %0 shape=[6, 5]\n"
                               "  %2 = reshape f32[30] %1 shape=[30]\n", "%2") ==
        graph_text(input + "  %1 = reshape f32[30] %0 shape=[30]\n", "%1"));
  CHECK(canonical_text(input + "  %1 = reshape f32[6, 5] %0 shape=[6, 5]\n"
                               "  %2 = reshape f32[2, 3, 5] %1 shape=[2, 3, 5]\n", "%2") == x_only);
  CHECK(canonical_text(input + "  %1 = permute f32[2, 3, 5] %0 perm=[0, 1, 2]\n", "%1") == x_only);
  CHECK(canonical_text(input + "  %1 = permute f32[3, 5, 2] %0 perm=[1, 2, 0]\n"
                               "  %2 = permute f32[5, 3, 2] %1 perm=[1, 0, 2]\n", "%2") ==
        graph_text(input + "  %1 = permute f32[5, 3, 2] %0 perm=[2, 1, 0]\n", "%1"));
  CHECK(canonical_text(input + "  %1 = permute f32[3, 5, 2] %0 perm=[1, 2, 0]\n"
                               "  %2 = permute f32[2, 3, 5] %1 perm=[2, 0, 1]\n", "%2") == x_only);
  CHECK(canonical_text(input + "  %1 = expand f32[2, 3, 5] %0 shape=[2, 3, 5]\n", "%1") == x_only);
  const std::string small = "  %0 = input f32[1, 3] strides=[3, 1] offset=0\n";
  CHECK(canonical_text(small + "  %1 = expand f32[4, 3] %0 shape=[4, 3]\n"
                               "  %2 = expand f32[2, 4, 3] %1 shape=[2, 4, 3]\n", "%2") ==
        graph_text(small + "  %1 = expand f32[2, 4, 3] %0 shape=[2, 4, 3]\n", "%1"));
  CHECK(canonical_text(input + "  %1 = slice f32[2, 3, 5] %0 axis=2 start=0 step=1 count=5\n", "%1") ==
        x_only);
  CHECK(canonical_text(input + "  %1 = slice f32[2, 3, 5] %0 axis=2 start=4 step=-1 count=5\n"
                               "  %2 = slice f32[2, 3, 5] %1 axis=2 start=4 step=-1 count=5\n", "%2") ==
        x_only);
  CHECK(canonical_text(input + "  %1 = slice f32[2, 3, 3] %0 axis=2 start=4 step=-2 count=3\n"
                               "  %2 = slice f32[2, 3, 2] %1 axis=2 start=1 step=1 count=2\n", "%2") ==
        graph_text(input + "  %1 = slice f32[2, 3, 2] %0 axis=2 start=2 step=-2 count=2\n", "%1"));
  // Slices of different axes do not merge.
  const std::string two_axes = input + "  %1 = slice f32[1, 3, 5] %0 axis=0 start=1 step=1 count=1\n"
                                       "  %2 = slice f32[1, 2, 5] %1 axis=1 start=0 step=2 count=2\n";
  CHECK(canonical_text(two_axes, "%2") == graph_text(two_axes, "%2"));
}

TEST_CASE("canonicalize: constants fold with the interpreter's scalar semantics") {
  auto folded = [](const std::string& lines, const std::string& outputs) {
    return canonical_text(lines, outputs);
  };
  CHECK(folded("  %0 = constant f32[2] value=0.1\n  %1 = constant f32[2] value=0.2\n"
               "  %2 = add f32[2] %0, %1\n", "%2") ==
        graph_text(fmt::format("  %0 = constant f32[2] value={}\n", 0.1f + 0.2f), "%0"));
  CHECK(folded("  %0 = constant i32[] value=7\n  %1 = constant i32[] value=0\n"
               "  %2 = div i32[] %0, %1\n", "%2") == graph_text("  %0 = constant i32[] value=0\n", "%0"));
  CHECK(folded("  %0 = constant i32[] value=-7\n  %1 = constant i32[] value=2\n"
               "  %2 = div i32[] %0, %1\n", "%2") == graph_text("  %0 = constant i32[] value=-4\n", "%0"));
  CHECK(folded("  %0 = constant f64[] value=nan\n  %1 = cast i32[] %0\n", "%1") ==
        graph_text("  %0 = constant i32[] value=0\n", "%0"));
  CHECK(folded("  %0 = constant i32[] value=-2147483648\n  %1 = neg i32[] %0\n", "%1") ==
        graph_text("  %0 = constant i32[] value=-2147483648\n", "%0"));
  CHECK(folded("  %0 = constant f32[] value=-0\n  %1 = constant f32[] value=0\n"
               "  %2 = add f32[] %0, %1\n", "%2") == graph_text("  %0 = constant f32[] value=0\n", "%0"));
  // Views of a constant are constants; folding then reaches through them.
  CHECK(folded("  %0 = constant f32[] value=2\n  %1 = expand f32[2, 3] %0 shape=[2, 3]\n"
               "  %2 = permute f32[3, 2] %1 perm=[1, 0]\n  %3 = exp f32[3, 2] %2\n", "%3") ==
        graph_text(fmt::format("  %0 = constant f32[3, 2] value={}\n", std::exp(2.0f)), "%0"));
  CHECK(folded("  %0 = constant bool[4] value=true\n  %1 = constant f64[4] value=1.5\n"
               "  %2 = constant f64[4] value=-inf\n  %3 = where f64[4] %0, %2, %1\n", "%3") ==
        graph_text("  %0 = constant f64[4] value=-inf\n", "%0"));
}

TEST_CASE("canonicalize: common subexpressions become one node") {
  const std::string two_inputs = kInputF32 + "  %1 = input f32[3] strides=[1] offset=0\n";
  CHECK(canonical_text(two_inputs + "  %2 = mul f32[3] %0, %1\n  %3 = mul f32[3] %0, %1\n"
                                    "  %4 = add f32[3] %2, %3\n", "%4") ==
        graph_text(two_inputs + "  %2 = mul f32[3] %0, %1\n  %3 = add f32[3] %2, %2\n", "%3"));
  // Equal constants merge; distinct inputs of one layout do not; outputs may then coincide.
  CHECK(canonical_text(two_inputs + "  %2 = constant f32[3] value=2\n  %3 = constant f32[3] value=2\n"
                                    "  %4 = sub f32[3] %0, %2\n  %5 = sub f32[3] %0, %3\n"
                                    "  %6 = sub f32[3] %1, %3\n", "%4, %5, %6") ==
        graph_text(kInputF32 + "  %1 = constant f32[3] value=2\n  %2 = sub f32[3] %0, %1\n"
                               "  %3 = input f32[3] strides=[1] offset=0\n  %4 = sub f32[3] %3, %1\n",
                   "%2, %2, %4"));
  // -0.0 and 0.0 are different constants.
  const std::string signed_zeros = kInputF32 + "  %1 = constant f32[3] value=0\n  %2 = constant f32[3] value=-0\n"
                                               "  %3 = sub f32[3] %0, %1\n  %4 = mul f32[3] %0, %2\n"
                                               "  %5 = mul f32[3] %0, %1\n";
  CHECK(canonical_text(signed_zeros, "%4, %5") ==
        graph_text(kInputF32 + "  %1 = constant f32[3] value=-0\n  %2 = mul f32[3] %0, %1\n"
                               "  %3 = constant f32[3] value=0\n  %4 = mul f32[3] %0, %3\n",
                   "%2, %4"));
}

TEST_CASE("canonicalize: random graphs over random data keep every bit") {
  int nodes_before = 0;
  int nodes_after = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = 5000 + seed;
    options.max_nodes = 10 + static_cast<int>(seed % 30);
    options.elementwise_only = seed % 4 == 0;
    options.bind_inputs = true;
    ir::Graph graph = tensorjit::testing::random_graph(options);
    ir::Graph canonical = ir::canonicalize(graph);
    INFO("seed ", options.seed, "\nbefore:\n", ir::print(graph), "after:\n", ir::print(canonical));
    ir::verify(canonical);
    CHECK(ir::print(ir::canonicalize(canonical)) == ir::print(canonical));  // a fixed point
    nodes_before += static_cast<int>(ir::topological_order(graph).size());
    nodes_after += static_cast<int>(ir::topological_order(canonical).size());

    auto expected = ir::interpret(graph);
    auto got = ir::interpret(canonical);
    REQUIRE(got.size() == expected.size());
    for (std::size_t output = 0; output < got.size(); ++output) {
      CHECK(got[output].dtype == expected[output].dtype);
      CHECK(got[output].layout.shape == expected[output].layout.shape);
      CHECK(element_bits(got[output]) == element_bits(expected[output]));
    }
  }
  MESSAGE("canonicalize kept ", nodes_after, " of ", nodes_before, " nodes");
  CHECK(nodes_after < nodes_before);
}

}  // TEST_SUITE
