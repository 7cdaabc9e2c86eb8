// The differential fuzzer: random graphs (tests/ir/random_graph.hpp) run through the JIT and the
// reference interpreter, compared bit for bit. Each seed draws its own kind of graph (elementwise
// chains or graphs with reductions and products, 8 to 48 nodes, rank 1 to 4, from tiny to 20 000
// elements a node, every dtype, views with negative, zero and gapped strides, NaN, infinities,
// subnormals and integer extremes among the values). The transcendental ops are left out: they
// are polynomials within an ulp bound of the interpreter's libm (docs/vector_math.md), checked
// one at a time by tests/runtime, and a bound on one op says nothing about a chain.
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
  return tj::testing::random_graph(options);
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
    if (a != e) {
      const std::size_t item = tj::itemsize(expected[i].dtype);
      std::size_t first = 0;
      while (first < a.size() && a[first] == e[first]) ++first;
      return fmt::format("output {}: element {} (row-major) differs", i, first / item);
    }
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

Tally fuzz(std::uint64_t first, std::uint64_t count, const std::optional<fs::path>& out) {
  Tally tally;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const ir::Graph graph = graph_of_seed(seed);
    ++tally.graphs;
    const auto why = disagreement(graph);
    if (!why) continue;
    ++tally.failures;
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
int run_seed_list(const fs::path& list, const std::optional<fs::path>& out) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  int failed = 0;
  for (const SeedRange& range : read_seed_list(list)) {
    std::vector<std::string> arguments = {self, "--first", std::to_string(range.first), "--count",
                                          std::to_string(range.count)};
    if (out) arguments.insert(arguments.end(), {"--out", out->string()});
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
  CLI11_PARSE(app, argc, argv);
  const std::optional<fs::path> out_folder = out.empty() ? std::nullopt : std::optional<fs::path>(out);
  try {
    if (!seed_list.empty()) return run_seed_list(seed_list, out_folder);
    const auto start = std::chrono::steady_clock::now();
    const Tally tally = fuzz(first, count, out_folder);
    std::cout << fmt::format("graphs {}, disagreements {}, {:.1f} s\n", tally.graphs, tally.failures,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return tally.failures == 0 ? 0 : 1;
  } catch (const tj::Error& e) {
    std::cerr << "differential_fuzz: " << e.what() << "\n";
    return 2;
  }
}
