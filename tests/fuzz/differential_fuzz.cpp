// The differential fuzzer: random graphs (tests/ir/random_graph.hpp) run through the JIT and the
// reference interpreter. Each seed draws its own kind of graph (elementwise chains or graphs with
// reductions, scans, sorts, gathers, scatter_adds and products, 8 to 48 nodes, rank 1 to 4, from
// tiny to 20 000 elements a node, every dtype, views with negative, zero and gapped strides, NaN,
// infinities, subnormals and integer extremes among the values), compared bit for bit. The
// transcendental ops (pow, exp, ..., tan, atan, atan2) are polynomials within an ulp bound of the
// interpreter's libm (docs/vector_math.md), and a bound on one op says nothing about a chain: the
// random graph leaves them out, and the fuzzer puts one on top of an output in one seed in eight
// (with_transcendental_output), where nothing reads it, compared within the op's bound
// (interpreter_tolerance; one ulp of f16/bf16, whose f32 result is rounded once more).
//
//   differential_fuzz --first N --count M [--out DIR]    seeds N..N+M-1 in this process
//   differential_fuzz --seed-list FILE [--out DIR]       each line "first count vector_bits
//                                                        threads tiered" in a child process with
//                                                        VECTOR_BITS, TENSORJIT_THREADS and
//                                                        TENSORJIT_TIERED set ("native" keeps the
//                                                        CPU's width)
//
// A graph on which the two disagree (different bits, or the JIT throws where the interpreter does
// not) is shrunk (graph_shrinker.hpp) and written to DIR as seed-<n>.tjir with its inputs in
// seed-<n>.npz; `tensorjit-dump --run --inputs seed-<n>.npz seed-<n>.tjir` reproduces it. Prints
// one summary line; exits 1 when any graph disagreed.
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <tensorjit/files.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/text.hpp>

#include "codegen/vector_math_bounds.hpp"
#include "fuzz/graph_shrinker.hpp"
#include "ir/random_graph.hpp"
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"
#include "runtime/value_bytes.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
namespace fs = std::filesystem;

namespace {

// `graph` with, in one seed in eight, one output replaced by a transcendental op of it (pow for an
// integer output, exact there); pow and atan2 take a second operand, a new input of random values.
// One in eight keeps the CI list's time: these polynomials take longer to compile than the rest of
// a graph. Drawn from a generator of its own, so the random graph of a seed stays what it was.
ir::Graph with_transcendental_output(ir::Graph graph, std::uint64_t seed) {
  std::mt19937_64 pick(seed ^ 0x5851f42d4c957f2dULL);
  if (pick() % 8 != 0) return graph;
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    if (tj::is_floating(graph.outputs[i]->dtype()) || tj::is_integer(graph.outputs[i]->dtype())) candidates.push_back(i);
  if (candidates.empty()) return graph;
  ir::NodePtr& output = graph.outputs[candidates[pick() % candidates.size()]];
  const tj::DType dtype = output->dtype();
  const auto ops = tj::codegen::testing::vector_math_ops();
  const ir::Op op = tj::is_integer(dtype) ? ir::Op::pow : ops[pick() % ops.size()];
  if (ir::info(op).arity == 1) {
    output = ir::make_unary(op, output);
    return graph;
  }
  const ir::Layout layout = ir::Layout::contiguous(output->shape());
  auto second = ir::make_input(tj::testing::random_buffer(layout, dtype, pick, true), dtype, layout);
  output = pick() % 2 == 0 ? ir::make_binary(op, output, second) : ir::make_binary(op, second, output);
  return graph;
}

// The graph of `seed`: the options are drawn from the seed too, so one list of seeds covers every
// kind of graph.
ir::Graph graph_of_seed(std::uint64_t seed) {
  std::mt19937_64 pick(seed * 0x9e3779b97f4a7c15ULL + 1);
  tj::testing::RandomGraphOptions options;
  options.seed = seed;
  options.bind_inputs = true;
  options.elementwise_only = pick() % 2 == 0;
  options.max_nodes = 8 + static_cast<int>(pick() % 41);
  options.max_outputs = 1 + static_cast<int>(pick() % 4);
  options.max_rank = 1 + static_cast<int>(pick() % 4);
  const std::int64_t sizes[] = {16, 300, 5000, 20000};
  options.max_elements = sizes[pick() % 4];
  options.zero_extent_probability = pick() % 4 == 0 ? 0.1 : 0.03;
  options.excluded_ops = tj::codegen::testing::vector_math_ops();
  if (pick() % 3 != 0) {  // two seeds in three favour one to four elementwise ops
    std::vector<ir::Op> candidates;
    for (int i = 0; i < ir::kOpCount; ++i) {
      const auto op = static_cast<ir::Op>(i);
      if (ir::is_elementwise(op) &&
          std::find(options.excluded_ops.begin(), options.excluded_ops.end(), op) == options.excluded_ops.end())
        candidates.push_back(op);
    }
    std::shuffle(candidates.begin(), candidates.end(), pick);
    candidates.resize(std::min<std::size_t>(candidates.size(), 1 + pick() % 4));
    options.favoured_ops = candidates;
  }
  return with_transcendental_output(tj::testing::random_graph(options), seed);
}

// How many representable values lie between two 16-bit floats of the same format (bits ordered
// as integers, negative values below zero); NaN (canonical in bytes_of) only equals NaN.
double storage_float_distance(std::uint16_t a, std::uint16_t b, tj::DType dtype) {
  const auto is_nan = [dtype](std::uint16_t bits) {
    return dtype == tj::DType::f16 ? (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0
                                   : (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0;
  };
  if (is_nan(a) || is_nan(b)) return is_nan(a) && is_nan(b) ? 0 : std::numeric_limits<double>::infinity();
  const auto ordered = [](std::uint16_t bits) { return bits & 0x8000 ? -static_cast<int>(bits & 0x7FFF) : static_cast<int>(bits); };
  return std::abs(ordered(a) - ordered(b));
}

// The first row-major element at which the JIT's bytes `actual` of `output` are not acceptable
// against the interpreter's `expected`: any difference for an exact op, beyond the op's ulp bound
// for a transcendental one on floats.
std::optional<std::size_t> first_difference(const ir::Node& output, const std::vector<unsigned char>& actual,
                                            const std::vector<unsigned char>& expected) {
  const tj::DType dtype = output.dtype();
  const std::size_t item = tj::itemsize(dtype);
  const bool bounded = tj::is_floating(dtype) && tj::codegen::testing::vector_math_bound(output.op()) != nullptr;
  for (std::size_t at = 0; at < actual.size(); at += item) {
    if (std::memcmp(&actual[at], &expected[at], item) == 0) continue;
    if (bounded) {
      double distance = 0, allowed = 1;
      if (dtype == tj::DType::f32 || dtype == tj::DType::f64) {
        allowed = tj::codegen::testing::interpreter_tolerance(output.op(), dtype);
        if (dtype == tj::DType::f32) {
          float x, y;
          std::memcpy(&x, &actual[at], 4);
          std::memcpy(&y, &expected[at], 4);
          distance = tj::codegen::testing::ulp_distance(x, y);
        } else {
          double x, y;
          std::memcpy(&x, &actual[at], 8);
          std::memcpy(&y, &expected[at], 8);
          distance = tj::codegen::testing::ulp_distance(x, y);
        }
      } else {
        std::uint16_t x, y;
        std::memcpy(&x, &actual[at], 2);
        std::memcpy(&y, &expected[at], 2);
        distance = storage_float_distance(x, y, dtype);
      }
      if (distance <= allowed) continue;
    }
    return at / item;
  }
  return std::nullopt;
}

// Why the JIT and the interpreter disagree on `graph`, or nothing when they agree (or when both
// refuse it with an Error: the graph is then outside what either computes).
std::optional<std::string> disagreement(const ir::Graph& graph) {
  std::vector<ir::Value> expected;
  std::string interpreter_error;
  try {
    expected = ir::interpret(graph);
  } catch (const tj::Error& e) {
    interpreter_error = e.what();
  }
  std::vector<ir::Value> actual;
  try {
    actual = tj::detail::run_graph(graph);
  } catch (const tj::Error& e) {
    if (!interpreter_error.empty()) return std::nullopt;
    return fmt::format("the JIT threw where the interpreter did not: {}", e.what());
  }
  if (!interpreter_error.empty()) return fmt::format("the JIT ran where the interpreter threw: {}", interpreter_error);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (actual[i].dtype != expected[i].dtype || actual[i].layout.shape != expected[i].layout.shape)
      return fmt::format("output {}: the JIT gave {}{}, the interpreter {}{}", i, tj::dtype_name(actual[i].dtype),
                         ir::shape_str(actual[i].layout.shape), tj::dtype_name(expected[i].dtype),
                         ir::shape_str(expected[i].layout.shape));
    const auto a = tj::testing::bytes_of(actual[i]), e = tj::testing::bytes_of(expected[i]);
    if (const auto element = first_difference(*graph.outputs[i], a, e))
      return fmt::format("output {}: element {} (row-major) differs", i, *element);
  }
  return std::nullopt;
}

// Writes `graph` as `<stem>.tjir` and its inputs, in the text's order, as `<stem>.npz` (members
// input0, input1, ...: what tensorjit-dump --inputs binds).
void write_reproducer(const ir::Graph& graph, const fs::path& stem, const std::string& why) {
  fs::create_directories(stem.parent_path());
  std::ofstream text(fs::path(stem).replace_extension(".tjir"));
  text << "# " << why << "\n" << ir::print(graph) << "\n";
  std::map<std::string, tj::Tensor> inputs;
  for (const auto& node : ir::topological_order(graph)) {
    if (node->op() != ir::Op::input) continue;
    const auto& input = node->attr<ir::InputAttr>();
    inputs.emplace(fmt::format("input{}", inputs.size()),
                   tj::detail::wrap(ir::make_input(input.buffer, input.dtype, input.layout)));
  }
  tj::save_npz(fs::path(stem).replace_extension(".npz").string(), inputs);
}

struct Tally {
  std::uint64_t graphs = 0, failures = 0;
};

// stop_at_first: end at the first disagreement, unshrunk (scripts/mutate.py only asks whether
// any graph disagrees).
Tally fuzz(std::uint64_t first, std::uint64_t count, const std::optional<fs::path>& out, bool stop_at_first) {
  Tally tally;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const ir::Graph graph = graph_of_seed(seed);
    ++tally.graphs;
    const auto why = disagreement(graph);
    if (!why) continue;
    ++tally.failures;
    if (stop_at_first) {
      std::cout << fmt::format("seed {}: {}\n", seed, *why);
      break;
    }
    const ir::Graph shrunk = tj::testing::shrink_graph(graph, [](const ir::Graph& g) { return disagreement(g).has_value(); });
    const std::string shrunk_why = disagreement(shrunk).value_or(*why);
    std::cout << fmt::format("seed {}: {}; shrunk from {} to {} nodes:\n{}\n", seed, *why,
                             ir::topological_order(graph).size(), ir::topological_order(shrunk).size(),
                             ir::print(shrunk));
    if (out) write_reproducer(shrunk, *out / fmt::format("seed-{}", seed), shrunk_why);
  }
  return tally;
}

struct SeedRange {
  std::uint64_t first = 0, count = 0;
  std::string vector_bits, threads, tiered;
};

std::vector<SeedRange> read_seed_list(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw tj::Error(fmt::format("cannot read the seed list {}", path.string()));
  std::vector<SeedRange> ranges;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    SeedRange range;
    if (!(fields >> range.first)) continue;  // blank or comment
    if (!(fields >> range.count >> range.vector_bits >> range.threads >> range.tiered))
      throw tj::Error(fmt::format("{}:{}: expected 'first count vector_bits threads tiered'", path.string(), number));
    ranges.push_back(range);
  }
  return ranges;
}

// Runs each range of the list in a child process of this program with its environment.
int run_seed_list(const fs::path& list, const std::optional<fs::path>& out, bool stop_at_first) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  int failed = 0;
  for (const SeedRange& range : read_seed_list(list)) {
    std::vector<std::string> arguments = {self, "--first", std::to_string(range.first), "--count",
                                          std::to_string(range.count)};
    if (out) arguments.insert(arguments.end(), {"--out", out->string()});
    if (stop_at_first) arguments.push_back("--stop-at-first");
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) {
      const std::string_view variable(*e);
      if (!variable.starts_with("VECTOR_BITS=") && !variable.starts_with("TENSORJIT_THREADS=") &&
          !variable.starts_with("TENSORJIT_TIERED="))
        environment.emplace_back(variable);
    }
    if (range.vector_bits != "native") environment.push_back("VECTOR_BITS=" + range.vector_bits);
    environment.push_back("TENSORJIT_THREADS=" + range.threads);
    environment.push_back("TENSORJIT_TIERED=" + range.tiered);
    std::vector<char*> argv, envp;
    for (auto& a : arguments) argv.push_back(a.data());
    for (auto& e : environment) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    std::cout << fmt::format("seeds {}..{} at VECTOR_BITS={} TENSORJIT_THREADS={} TENSORJIT_TIERED={}\n", range.first,
                             range.first + range.count - 1, range.vector_bits, range.threads, range.tiered)
              << std::flush;
    pid_t pid = 0;
    if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0)
      throw tj::Error("cannot start " + self);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
      std::cout << (WIFEXITED(status) ? "  disagreements above\n" : "  the child crashed: rerun its seeds with --first/--count\n");
      if (stop_at_first) break;
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"differential_fuzz: random graphs through the JIT and the interpreter, compared bit for bit"};
  std::uint64_t first = 0, count = 100;
  std::string seed_list, out;
  app.add_option("--first", first, "the first seed");
  app.add_option("--count", count, "how many seeds");
  app.add_option("--seed-list", seed_list, "a file of ranges 'first count vector_bits threads tiered'")
      ->check(CLI::ExistingFile);
  app.add_option("--out", out, "a folder for the shrunk reproducers (.tjir and .npz)");
  bool stop_at_first = false;
  app.add_flag("--stop-at-first", stop_at_first, "end at the first disagreement, without shrinking it");
  CLI11_PARSE(app, argc, argv);
  const std::optional<fs::path> out_folder = out.empty() ? std::nullopt : std::optional<fs::path>(out);
  try {
    if (!seed_list.empty()) return run_seed_list(seed_list, out_folder, stop_at_first);
    const auto start = std::chrono::steady_clock::now();
    const Tally tally = fuzz(first, count, out_folder, stop_at_first);
    std::cout << fmt::format("graphs {}, disagreements {}, {:.1f} s\n", tally.graphs, tally.failures,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return tally.failures == 0 ? 0 : 1;
  } catch (const tj::Error& e) {
    std::cerr << "differential_fuzz: " << e.what() << "\n";
    return 2;
  }
}
