// The text IR: exact round trips on random and hand-written graphs, one error per class of
// malformed text (naming line and column), and a mutation fuzz that may only ever throw Error.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <tensorjit/error.hpp>
#include <tensorjit/ir/text.hpp>

#include "ir/random_graph.hpp"

namespace ir = tensorjit::ir;
using tensorjit::DType;

namespace {

// Parses `text`, checks it prints back unchanged and verifies; returns the graph.
ir::Graph round_trip(const std::string& text) {
  ir::Graph graph = ir::parse(text);
  CHECK(ir::print(graph) == text);
  ir::verify(graph);
  return graph;
}

// The message of the tensorjit::Error that parsing `text` throws ("" when it does not throw).
std::string parse_error(const std::string& text) {
  try {
    ir::parse(text);
  } catch (const tensorjit::Error& error) {
    return error.what();
  }
  return "";
}

std::string one_node_graph(const std::string& lines, const std::string& outputs = "%1") {
  return fmt::format("graph {{\n{}  outputs {}\n}}\n", lines, outputs);
}

std::uint64_t bits(double value) { return std::bit_cast<std::uint64_t>(value); }

}  // namespace

TEST_SUITE("ir") {

TEST_CASE("text: the example of text.hpp round-trips") {
  const std::string text =
      "graph {\n"
      "  %0 = input f32[2, 3] strides=[3, 1] offset=0\n"
      "  %1 = constant f32[] value=2\n"
      "  %2 = expand f32[2, 3] %1 shape=[2, 3]\n"
      "  %3 = mul f32[2, 3] %0, %2\n"
      "  %4 = reduce_sum f32[2] %3 axes=[1] keepdims=false mode=strict\n"
      "  outputs %3, %4\n"
      "}\n";
  ir::Graph graph = round_trip(text);
  REQUIRE(graph.outputs.size() == 2);
  CHECK(graph.outputs[1]->op() == ir::Op::reduce_sum);
  CHECK(graph.outputs[1]->input(0) == graph.outputs[0]);
}

TEST_CASE("text: random graphs round-trip exactly") {
  for (std::uint64_t seed = 0; seed < 600; ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = seed;
    options.max_nodes = 8 + static_cast<int>(seed % 40);
    options.elementwise_only = seed % 5 == 0;
    options.fast_reductions = seed % 3 == 0;
    ir::Graph graph = tensorjit::testing::random_graph(options);
    ir::verify(graph);
    std::string text = ir::print(graph);
    ir::Graph parsed = ir::parse(text);
    INFO("seed ", seed, "\n", text);
    CHECK(ir::graphs_equal(graph, parsed));
    CHECK(ir::print(parsed) == text);
    ir::verify(parsed);
  }
}

TEST_CASE("text: graphs_equal compares structure, values bit for bit, sharing and outputs") {
  const std::string base =
      "  %0 = input f32[2] strides=[1] offset=0\n"
      "  %1 = constant f32[2] value=0\n"
      "  %2 = add f32[2] %0, %1\n"
      "  %3 = add f32[2] %0, %1\n"
      "  %4 = mul f32[2] %2, %3\n";
  auto graph = [&](const std::string& lines, const std::string& outputs) {
    return ir::parse(one_node_graph(lines, outputs));
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string lines = base;
    lines.replace(lines.find(from), from.size(), to);
    return lines;
  };
  ir::Graph reference = graph(base, "%4, %0");
  CHECK(ir::graphs_equal(reference, graph(base, "%4, %0")));  // fresh input ids do not matter
  CHECK_FALSE(ir::graphs_equal(reference, graph(base, "%0, %4")));
  CHECK_FALSE(ir::graphs_equal(reference, graph(base, "%4")));
  CHECK_FALSE(ir::graphs_equal(reference, graph(replaced("value=0", "value=-0"), "%4, %0")));
  CHECK_FALSE(ir::graphs_equal(reference, graph(replaced("offset=0", "offset=1"), "%4, %0")));
  CHECK_FALSE(ir::graphs_equal(reference, graph(replaced("mul", "sub"), "%4, %0")));
  CHECK_FALSE(ir::graphs_equal(reference, graph(replaced("%2, %3", "%2, %2"), "%4, %0")));
}

TEST_CASE("text: parsed inputs are unbound, with fresh distinct ids") {
  ir::Graph graph = round_trip(
      "graph {\n"
      "  %0 = input i64[3] strides=[-2] offset=4\n"
      "  %1 = input i64[3] strides=[0] offset=0\n"
      "  %2 = add i64[3] %0, %1\n"
      "  outputs %2\n"
      "}\n");
  const auto& first = graph.outputs[0]->input(0)->attr<ir::InputAttr>();
  const auto& second = graph.outputs[0]->input(1)->attr<ir::InputAttr>();
  CHECK(first.buffer == nullptr);
  CHECK(second.buffer == nullptr);
  CHECK(first.id != second.id);
  CHECK(first.layout == ir::Layout{{3}, {-2}, 4});
  CHECK(ir::parse(ir::print(graph)).outputs[0]->input(0)->attr<ir::InputAttr>().id != first.id);
}

TEST_CASE("text: constants keep every bit") {
  struct Case {
    const char* dtype;
    const char* value;
  };
  const Case cases[] = {
      {"f32", "0.1"},     {"f32", "-0"},       {"f32", "0"},         {"f32", "inf"},
      {"f32", "-inf"},    {"f32", "nan"},      {"f32", "-nan"},      {"f32", "1e-45"},
      {"f32", "3.4028235e+38"}, {"f32", "nan(0x7f800001)"}, {"f32", "nan(0xffc00123)"},
      {"f64", "0.1"},     {"f64", "-0"},       {"f64", "5e-324"},    {"f64", "1.7976931348623157e+308"},
      {"f64", "nan(0x7ff0000000000001)"},      {"f64", "-nan"},      {"f64", "123456789"},
      {"i32", "-2147483648"}, {"i32", "2147483647"}, {"i64", "-9223372036854775808"},
      {"i64", "9223372036854775807"}, {"bool", "true"}, {"bool", "false"},
  };
  for (const auto& c : cases) {
    INFO(c.dtype, " ", c.value);
    round_trip(one_node_graph(fmt::format("  %0 = constant {}[2] value={}\n", c.dtype, c.value),
                              "%0"));
  }
  auto value_of = [](const std::string& dtype, const std::string& value) {
    auto graph = ir::parse(one_node_graph(fmt::format("  %0 = constant {}[] value={}\n", dtype, value), "%0"));
    return graph.outputs[0]->attr<ir::ConstantAttr>().value;
  };
  CHECK(bits(value_of("f32", "-0").f) == bits(-0.0));
  CHECK(bits(value_of("f32", "0.1").f) == bits(static_cast<double>(0.1f)));
  CHECK(bits(value_of("f64", "0.1").f) == bits(0.1));
  CHECK(bits(value_of("f64", "nan(0x7ff0000000000001)").f) == 0x7ff0000000000001ULL);
  // An f32 signalling NaN is widened on its bits, not by a conversion that would quieten it.
  CHECK(bits(value_of("f32", "nan(0x7f800001)").f) == 0x7ff0000020000000ULL);
  CHECK(std::signbit(value_of("f64", "-nan").f));
  CHECK(value_of("i64", "-9223372036854775808").i == std::numeric_limits<std::int64_t>::min());
  CHECK(value_of("bool", "true").i == 1);

  // Printing picks the shortest decimal of the dtype's width.
  ir::Graph graph{{ir::make_constant(DType::f32, {}, ir::Scalar::of(DType::f32, 0.1))}};
  CHECK(ir::print(graph).find("value=0.1\n") != std::string::npos);
  for (double special : {std::numeric_limits<double>::denorm_min(), -0.0, 1e300, -1e-300,
                         std::numeric_limits<double>::quiet_NaN()}) {
    ir::Graph f64_graph{{ir::make_constant(DType::f64, {3}, ir::Scalar::of(DType::f64, special))}};
    auto parsed = ir::parse(ir::print(f64_graph));
    CHECK(bits(parsed.outputs[0]->attr<ir::ConstantAttr>().value.f) == bits(special));
  }
}

TEST_CASE("text: every source and view op, hand-written") {
  round_trip(one_node_graph(
      "  %0 = input f64[2, 0, 3] strides=[1, 0, -2] offset=4\n"
      "  %1 = permute f64[0, 3, 2] %0 perm=[1, 2, 0]\n",
      "%1"));
  round_trip(one_node_graph(
      "  %0 = iota i32[6] start=-3 step=0.5 strides=[1] offset=0\n"
      "  %1 = reshape i32[2, 1, 3] %0 shape=[2, 1, 3]\n"
      "  %2 = expand i32[4, 2, 5, 3] %1 shape=[4, 2, 5, 3]\n"
      "  %3 = slice i32[4, 2, 3, 3] %2 axis=2 start=4 step=-2 count=3\n",
      "%3, %1"));
  round_trip(one_node_graph("  %0 = iota f64[0] start=0 step=1 strides=[1] offset=0\n", "%0"));
  // A view folded into an iota's layout (fold_views).
  round_trip(one_node_graph("  %0 = iota i64[3, 4] start=2 step=-1.5 strides=[0, -2] offset=7\n", "%0"));
  round_trip(one_node_graph(
      "  %0 = constant bool[] value=true\n"
      "  %1 = reshape bool[1, 1] %0 shape=[1, 1]\n",
      "%1"));
  round_trip(one_node_graph(
      "  %0 = input i64[5] strides=[1] offset=0\n"
      "  %1 = slice i64[0] %0 axis=0 start=2 step=1 count=0\n"
      "  %2 = copy i64[5] %0\n",
      "%1, %2, %0"));
}

TEST_CASE("text: every unary and binary op, for each dtype it takes") {
  for (int index = 0; index < ir::kOpCount; ++index) {
    auto op = static_cast<ir::Op>(index);
    if (!ir::is_elementwise(op) || op == ir::Op::cast || op == ir::Op::where) continue;
    for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean}) {
      auto kind = ir::info(op).operands;
      bool allowed = kind == ir::OperandKind::any ||
                     (kind == ir::OperandKind::numeric && !tensorjit::is_bool(dtype)) ||
                     (kind == ir::OperandKind::floating && tensorjit::is_floating(dtype)) ||
                     (kind == ir::OperandKind::integer && tensorjit::is_integer(dtype)) ||
                     (kind == ir::OperandKind::boolean && tensorjit::is_bool(dtype)) ||
                     (kind == ir::OperandKind::wide && dtype == DType::i64);
      if (!allowed) continue;
      auto type = fmt::format("{}[3, 2]", tensorjit::dtype_name(dtype));
      const DType result_dtype = ir::is_comparison(op)                         ? DType::boolean
                                 : ir::info(op).result == ir::ResultKind::word ? DType::i32
                                                                               : dtype;
      auto result = fmt::format("{}[3, 2]", tensorjit::dtype_name(result_dtype));
      bool unary = ir::info(op).arity == 1;
      auto text = one_node_graph(
          fmt::format("  %0 = input {0} strides=[2, 1] offset=0\n"
                      "{1}"
                      "  %{2} = {3} {4} %0{5}\n",
                      type, unary ? "" : fmt::format("  %1 = input {} strides=[1, 3] offset=0\n", type),
                      unary ? 1 : 2, ir::op_name(op), result, unary ? "" : ", %1"),
          unary ? "%1, %0" : "%2");
      INFO(text);
      ir::Graph graph = round_trip(text);
      CHECK(graph.outputs[0]->op() == op);
    }
  }
}

TEST_CASE("text: cast, where, reductions and matmul, hand-written") {
  for (DType from : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean}) {
    for (DType to : {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean}) {
      round_trip(one_node_graph(fmt::format("  %0 = input {}[2] strides=[1] offset=0\n"
                                            "  %1 = cast {}[2] %0\n",
                                            tensorjit::dtype_name(from), tensorjit::dtype_name(to))));
    }
  }
  round_trip(one_node_graph(
      "  %0 = input f32[4] strides=[1] offset=0\n"
      "  %1 = constant f32[4] value=-0\n"
      "  %2 = gt bool[4] %0, %1\n"
      "  %3 = where f32[4] %2, %0, %1\n",
      "%3"));
  round_trip(one_node_graph(
      "  %0 = input i32[2, 3, 5] strides=[15, 5, 1] offset=0\n"
      "  %1 = reduce_sum i64[2, 1, 1] %0 axes=[1, 2] keepdims=true mode=fast\n"
      "  %2 = reduce_prod i64[] %0 axes=[0, 1, 2] keepdims=false mode=strict\n"
      "  %3 = reduce_max i32[2, 3, 5] %0 axes=[] keepdims=false mode=strict\n"
      "  %4 = reduce_min i32[3, 5] %0 axes=[0] keepdims=false mode=strict\n"
      "  %5 = argmax i64[2, 5] %0 axes=[1] keepdims=false mode=strict\n"
      "  %6 = argmin i64[2, 3, 1] %0 axes=[2] keepdims=true mode=strict\n"
      "  %7 = cast bool[2, 3, 5] %0\n"
      "  %8 = reduce_any bool[5] %7 axes=[0, 1] keepdims=false mode=strict\n"
      "  %9 = reduce_all bool[1, 1, 1] %7 axes=[0, 1, 2] keepdims=true mode=strict\n",
      "%1, %2, %3, %4, %5, %6, %8, %9"));
  round_trip(one_node_graph(
      "  %0 = input f64[2, 3, 4] strides=[12, 4, 1] offset=0\n"
      "  %1 = input f64[2, 4, 5] strides=[20, 5, 1] offset=0\n"
      "  %2 = matmul f64[2, 3, 5] %0, %1\n",
      "%2"));
}

TEST_CASE("text: a chain of 100 000 nodes parses, prints and is freed without deep recursion") {
  constexpr int kLength = 100000;
  std::string text = "graph {\n  %0 = input f32[] strides=[] offset=0\n";
  for (int i = 1; i < kLength; ++i) text += fmt::format("  %{} = neg f32[] %{}\n", i, i - 1);
  text += fmt::format("  outputs %{}\n}}\n", kLength - 1);
  ir::Graph graph = ir::parse(text);
  CHECK(ir::print(graph) == text);
}

TEST_CASE("text: the parser takes comments, blank lines, extra spaces and any numbering") {
  ir::Graph graph = ir::parse(
      "# a hand-written graph\n"
      "\n"
      "graph {   # with comments\n"
      "\t%7 =  input   f32[2]   strides=[ 1 ]  offset=0\n"
      "\n"
      "  %3 = neg f32[2] %7   # negated\n"
      "  outputs %3 ,%7\n"
      "}\n"
      "\n");
  CHECK(ir::print(graph) ==
        "graph {\n"
        "  %0 = input f32[2] strides=[1] offset=0\n"
        "  %1 = neg f32[2] %0\n"
        "  outputs %1, %0\n"
        "}\n");
  CHECK(ir::print(ir::parse("graph {\n  outputs\n}\n")) == "graph {\n  outputs\n}\n");
}

TEST_CASE("text: each malformed text names its line, column and what was expected") {
  const std::string input = "  %0 = input f32[2] strides=[1] offset=0\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "line 1, column 1: expected 'graph', found the end of the file"},
      {"graph {\n" + input, "line 3, column 1: expected a node line"},
      {"graph {\n" + input + "  outputs %0\n", "line 4, column 1: expected '}'"},
      {"graph {\n  %0 = frobnicate f32[] value=1\n  outputs %0\n}\n",
       "line 2, column 8: expected an op name of ops.def, found 'frobnicate'"},
      {one_node_graph(input + "  %1 = add f32[2] %0\n"),
       "line 3, column 21: expected ',' and operand 2 of 2 (add takes 2 operands)"},
      {one_node_graph(input + "  %1 = neg f32[2] %0, %0\n"), "line 3, column 21: expected no more operands (neg takes 1)"},
      {one_node_graph(input + "  %1 = neg f32[2] %5\n"), "line 3, column 19: expected a node defined on an earlier line (%5 is not)"},
      {one_node_graph(input + "  %1 = neg f32[2] %0\n", "%9"), "line 4, column 11: expected a node defined"},
      {one_node_graph("  %1 = constant f32[] value=1.2.3\n"), "line 2, column 29: expected a floating number of f32, found '1.2.3'"},
      {one_node_graph("  %1 = constant f32[] value=1e39\n"), "line 2, column 29: expected a number in the range of f32"},
      {one_node_graph("  %1 = constant f64[] value=1e-400\n"), "line 2, column 29: expected a number in the range of f64"},
      {one_node_graph("  %1 = input f32[2] strides=[1] offset=-9223372036854775808\n"),
       "line 2, column 14: expected an offset above the int64 minimum"},
      {one_node_graph("  %1 = input f32[2] strides=[-9223372036854775808] offset=0\n"),
       "line 2, column 14: expected strides and offset whose addresses fit in int64"},
      {one_node_graph("  %1 = constant i32[] value=2147483648\n"), "line 2, column 29: an i32 value is out of range"},
      {one_node_graph("  %1 = constant i64[] value=99999999999999999999\n"), "line 2, column 29: an i64 value is out of range"},
      {one_node_graph("  %1 = constant f64[] value=nan(0x1)\n"), "line 2, column 29: expected the bits of an f64 NaN"},
      {one_node_graph("  %1 = constant bool[] value=2\n"), "line 2, column 30: expected true or false"},
      {one_node_graph("  %1 = constant f32[4294967296, 4294967296] value=1\n"),
       "line 2, column 20: expected a shape whose element count fits in int64"},
      {one_node_graph("  %1 = constant f32[1, 1, 1, 1, 1, 1, 1, 1, 1] value=1\n"), "line 2, column 45: expected at most 8 entries in the shape"},
      {one_node_graph("  %1 = constant f32[-1] value=1\n"), "line 2, column 20: expected non-negative extents"},
      {one_node_graph("  %1 = constant f33[] value=1\n"), "line 2, column 17: expected a dtype (f32, f64, f16, bf16, i32, i64 or bool), found 'f33'"},
      {one_node_graph(input + "  %1 = neg f64[2] %0\n"), "line 3, column 12: the line says f64[2] but neg gives f32[2]"},
      {one_node_graph(input + "  %1 = permute f32[2] %0\n"), "line 3, column 25: expected attribute 'perm=' (permute needs it), found the end of the line"},
      {one_node_graph(input + "  %1 = neg f32[2] %0 axis=1\n"), "line 3, column 22: expected only the attributes neg takes ('axis' is not one)"},
      {one_node_graph(input + "  %1 = slice f32[1] %0 axis=0 axis=0 start=0 step=1 count=1\n"),
       "line 3, column 31: expected each attribute once ('axis' is repeated)"},
      {one_node_graph(input + "  %0 = neg f32[2] %0\n", "%0"), "line 3, column 3: expected a new node number (%0 is already defined)"},
      {one_node_graph(input + "  %1 = reshape f32[3] %0 shape=[3]\n"), "line 3, column 8: this node is not valid: reshape: cannot reshape f32[2]"},
      {one_node_graph("  %1 = input f32[2] strides=[1, 1] offset=0\n"), "line 2, column 29: expected 1 strides, one per axis"},
      {one_node_graph("  %1 = input f32[3] strides=[9223372036854775807] offset=0\n"),
       "line 2, column 14: expected strides and offset whose addresses fit in int64"},
      {one_node_graph("  %1 = constant f32[] value=1\n") + "extra\n", "line 5, column 1: expected the end of the file"},
      {"graph {\n  %1 = constant f32[] value=\x01\xff\n  outputs %1\n}\n", "line 2, column 29: expected a floating number of f32, found '\\x01\\xff'"},
      {"\xef\xbb\xbfgraph {\n", "line 1, column 1: expected 'graph', found '\\xef\\xbb\\xbfgraph'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    std::string message = parse_error(c.text);
    CHECK_MESSAGE(message.find(c.message) != std::string::npos, "message: ", message);
  }
}

TEST_CASE("text: every truncation of a valid text throws Error or parses") {
  tensorjit::testing::RandomGraphOptions options;
  options.seed = 7;
  options.max_nodes = 30;
  const std::string text = ir::print(tensorjit::testing::random_graph(options));
  int errors = 0;
  for (std::size_t length = 0; length < text.size(); ++length) {
    std::string message = parse_error(text.substr(0, length));
    if (!message.empty()) ++errors;
    CHECK_MESSAGE((message.empty() || message.find("line ") != std::string::npos), message);
  }
  CHECK(errors >= static_cast<int>(text.size()) - 2);  // only the text less its final newline parses
}

TEST_CASE("text: byte mutations of valid texts only ever throw tensorjit::Error") {
  std::mt19937_64 rng(2024);
  const std::string replacements[] = {"%", ",", "[", "]", "=", "\n", "-", "0", "9", "99999999999999999999",
                                      "nan(0x", "inf", "-0", " ", "#", "}", "{", "\x00", "\xff", "1e400",
                                      "f64", "bool", "axes=[", "%0", "%-1"};
  int parsed = 0;
  int rejected = 0;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = 1000 + seed;
    options.max_nodes = 20;
    const std::string text = ir::print(tensorjit::testing::random_graph(options));
    for (int mutation = 0; mutation < 400; ++mutation) {
      std::string mutated = text;
      int edits = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int edit = 0; edit < edits && !mutated.empty(); ++edit) {
        std::size_t at = std::uniform_int_distribution<std::size_t>(0, mutated.size() - 1)(rng);
        switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
          case 0: mutated[at] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng)); break;
          case 1: mutated.erase(at, std::uniform_int_distribution<std::size_t>(1, 8)(rng)); break;
          case 2: {
            const auto& piece = replacements[std::uniform_int_distribution<std::size_t>(0, std::size(replacements) - 1)(rng)];
            mutated.insert(at, piece.empty() ? std::string(1, '\0') : piece);
            break;
          }
          case 3: mutated[at] = static_cast<char>(mutated[at] ^ (1 << std::uniform_int_distribution<int>(0, 7)(rng))); break;
          case 4: {  // a number changed into another small number: valid syntax, often a bad graph
            std::size_t end = at;
            while (end < mutated.size() && mutated[end] >= '0' && mutated[end] <= '9') ++end;
            mutated.replace(at, end - at, std::to_string(std::uniform_int_distribution<int>(-20, 20)(rng)));
            break;
          }
          default: {
            std::size_t from = std::uniform_int_distribution<std::size_t>(0, mutated.size() - 1)(rng);
            mutated.insert(at, mutated.substr(from, std::uniform_int_distribution<std::size_t>(1, 20)(rng)));
          }
        }
      }
      try {
        ir::Graph graph = ir::parse(mutated);
        ir::verify(graph);
        ++parsed;
      } catch (const tensorjit::Error& error) {
        if (std::string(error.what()).find("line ") == std::string::npos) FAIL("no position: ", error.what());
        ++rejected;
      } catch (const std::exception& error) {
        FAIL("a mutation threw a non-tensorjit exception: ", error.what(), "\n", mutated);
      }
    }
  }
  CHECK(parsed + rejected == 12 * 400);
  CHECK(rejected > 0);
}

}  // TEST_SUITE
