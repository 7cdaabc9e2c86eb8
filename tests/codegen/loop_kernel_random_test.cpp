// Random elementwise graphs (tests/ir/random_graph.hpp: every elementwise op and dtype, views,
// iota, constants, inputs with padded, permuted, negative and zero strides, special values, several
// outputs) cut into loop kernels as a fusion pass would, run by the JIT, and compared with the
// interpreter on the whole graph, bit for bit. The transcendental ops are left out: they are within
// an ulp bound of libm, not equal to it, and a bound on one op says nothing about a chain of them
// (vector_math_*_test.cpp and loop_kernel_ops_test.cpp cover them).
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <unordered_map>

#include <tensorjit/ir/text.hpp>
#include <tensorjit/ir/view.hpp>

#include "codegen_test_support.hpp"
#include "ir/random_graph.hpp"
#include "loop_kernel_testing.hpp"
#include "vector_math_bounds.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::contiguous_bytes;
using codegen::testing::first_difference;
using codegen::testing::make_spec;
using codegen::testing::run_loop_kernel;
using tensorjit::DType;

namespace {

// Rewrites a graph of sources, views and elementwise ops into loop kernels, the test's stand-in for
// the fusion pass: views are folded into input layouts (apply_view); a view of a computed value
// materialises that value first with a kernel of its own; iota is materialised by the interpreter.
// Every kernel runs with random cut points, so splits are exercised on every graph.
class KernelChain {
 public:
  KernelChain(codegen::Jit& jit, std::mt19937_64& rng) : jit_(jit), rng_(rng) {}

  // The outputs of `graph`, computed by loop kernels (one per distinct output shape).
  std::vector<std::vector<unsigned char>> evaluate(const ir::Graph& graph) {
    std::map<ir::Shape, std::vector<std::size_t>> by_shape;
    for (std::size_t j = 0; j < graph.outputs.size(); ++j)
      by_shape[graph.outputs[j]->shape()].push_back(j);
    std::vector<std::vector<unsigned char>> results(graph.outputs.size());
    for (const auto& [shape, positions] : by_shape) {
      ir::Graph kernel_graph;
      for (std::size_t j : positions) kernel_graph.outputs.push_back(convert(graph.outputs[j]));
      auto outputs = run(kernel_graph);
      for (std::size_t i = 0; i < positions.size(); ++i)
        results[positions[i]] = std::move(outputs[i]);
    }
    return results;
  }

  int kernels_run() const { return kernels_run_; }

 private:
  std::vector<std::vector<unsigned char>> run(const ir::Graph& graph) {
    auto spec = make_spec(graph);
    // Half the kernels store with non-temporal stores after an aligning scalar prologue; the
    // bits must not change.
    spec.streaming_stores = std::uniform_int_distribution<int>(0, 1)(rng_) == 1;
    auto kernel = codegen::compile_loop_kernel(jit_, spec);
    const ir::Shape& domain = graph.outputs.front()->shape();
    std::int64_t count = 1;
    for (auto extent : domain) count *= extent;
    std::vector<std::int64_t> cuts{0, count};
    for (int i = 0; i < 3; ++i)
      cuts.push_back(std::uniform_int_distribution<std::int64_t>(0, count)(rng_));
    std::sort(cuts.begin(), cuts.end());
    ++kernels_run_;
    return run_loop_kernel(*kernel, spec, domain, cuts);
  }

  // A contiguous input leaf holding the value of `expression` (an elementwise expression).
  ir::NodePtr materialise(const ir::NodePtr& expression) {
    auto bytes = run(ir::Graph{{expression}}).front();
    auto buffer = ir::Buffer::allocate(std::max<std::size_t>(bytes.size(), 1));
    if (!bytes.empty()) std::memcpy(buffer->data(), bytes.data(), bytes.size());  // an empty one's data() may be null
    return ir::make_input(std::move(buffer), expression->dtype(),
                          ir::Layout::contiguous(expression->shape()));
  }

  ir::NodePtr convert(const ir::NodePtr& node) {
    if (auto found = done_.find(node.get()); found != done_.end()) return found->second;
    ir::NodePtr result;
    switch (ir::category(node->op())) {
      case ir::OpCategory::source:
        if (node->op() == ir::Op::iota) {
          const ir::Value value = ir::interpret(ir::Graph{{node}}).front();
          result = ir::make_input(value.buffer, value.dtype, value.layout);
        } else {
          result = node;
        }
        break;
      case ir::OpCategory::movement: result = convert_view(*node, convert(node->input(0))); break;
      default: {
        REQUIRE(ir::is_elementwise(node->op()));
        std::vector<ir::NodePtr> inputs;
        for (const auto& input : node->inputs()) inputs.push_back(convert(input));
        result = node->with_inputs(std::move(inputs));
      }
    }
    done_.emplace(node.get(), result);
    return result;
  }

  ir::NodePtr convert_view(const ir::Node& view, ir::NodePtr operand) {
    if (operand->op() == ir::Op::constant) {
      return ir::make_constant(view.dtype(), view.shape(), operand->attr<ir::ConstantAttr>().value);
    }
    if (operand->op() != ir::Op::input) operand = materialise(operand);
    const auto& input = operand->attr<ir::InputAttr>();
    std::optional<ir::Layout> layout = ir::apply_view(input.layout, view);
    if (!layout) {  // a reshape strides cannot express: copy to contiguous first
      operand = materialise(ir::make_unary(ir::Op::copy, operand));
      layout = ir::apply_view(operand->attr<ir::InputAttr>().layout, view);
      REQUIRE(layout.has_value());
    }
    return ir::make_input(operand->attr<ir::InputAttr>().buffer, view.dtype(), *layout);
  }

  codegen::Jit& jit_;
  std::mt19937_64& rng_;
  std::unordered_map<const ir::Node*, ir::NodePtr> done_;
  int kernels_run_ = 0;
};

// Runs `count` random graphs from `first_seed` through kernels of `jit`; returns the kernels run.
int check_random_graphs(codegen::Jit& jit, std::uint64_t first_seed, int count) {
  std::mt19937_64 rng(first_seed);
  int kernels = 0;
  for (std::uint64_t seed = first_seed; seed < first_seed + static_cast<std::uint64_t>(count);
       ++seed) {
    tensorjit::testing::RandomGraphOptions options;
    options.seed = seed;
    options.elementwise_only = true;
    options.bind_inputs = true;
    options.excluded_ops = codegen::testing::vector_math_ops();
    const ir::Graph graph = tensorjit::testing::random_graph(options);
    CAPTURE(seed);
    KernelChain chain(jit, rng);
    const auto actual = chain.evaluate(graph);
    const auto expected = ir::interpret(graph);
    for (std::size_t j = 0; j < expected.size(); ++j) {
      const auto reference = contiguous_bytes(expected[j]);
      const DType dtype = graph.outputs[j]->dtype();
      const auto at = first_difference(dtype, actual[j], reference);
      INFO("graph:\n" << ir::print(graph));
      INFO("output " << j << " " << tensorjit::dtype_name(dtype)
                     << ir::shape_str(graph.outputs[j]->shape()) << " differs at element " << at
                     << ": kernel " << codegen::testing::element_text(dtype, actual[j], at)
                     << ", interpreter " << codegen::testing::element_text(dtype, reference, at));
      CHECK(at < 0);
    }
    kernels += chain.kernels_run();
  }
  return kernels;
}

}  // namespace

TEST_CASE("1000 random elementwise graphs give the interpreter's bits at the native width") {
  codegen::Jit jit;
  const int kernels = check_random_graphs(jit, 1, 1000);
  MESSAGE(kernels << " kernels run, " << jit.stats().compiles << " compiled");
  CHECK(kernels >= 1000);
}

TEST_CASE("random elementwise graphs give the interpreter's bits at 128 and 512 bits") {
  for (int bits : {128, 512}) {
    CAPTURE(bits);
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    check_random_graphs(jit, 5001, 100);
  }
}
