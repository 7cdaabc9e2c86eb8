// tensorjit-dump: reads a graph in the text IR and prints any stage of what tensorjit makes of it.
//
//   tensorjit-dump FILE.tjir [--stage graph|after:<pass>|plan|llvm|llvm-opt|asm|all]
//                  [--vector-bits N] [--run] [--inputs VALUES.npz]
//
// The LLVM IR and assembly it prints are those of the kernels it actually compiled and ran (on
// random inputs), captured by the JIT as it linked them, not a second compilation.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

#include <tensorjit/error.hpp>
#include <tensorjit/files.hpp>
#include <tensorjit/ir/interpreter.hpp>
#include <tensorjit/ir/pipeline.hpp>
#include <tensorjit/ir/text.hpp>
#include <tensorjit/runtime/run_plan.hpp>


namespace ir = tensorjit::ir;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tensorjit::Error(fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Calls visit(element) for the buffer element of each index of `layout`.
template <typename F> void for_each_element(const ir::Layout& layout, F&& visit) {
  std::int64_t numel = 1;
  for (auto e : layout.shape) numel *= e;
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t element = layout.offset, rest = flat;
    for (std::size_t d = layout.shape.size(); d-- > 0;) {
      element += rest % layout.shape[d] * layout.strides[d];
      rest /= layout.shape[d];
    }
    visit(element);
  }
}

// Every unbound input gets a buffer spanning what its layout reaches, and only that: the layout
// is moved to start at the buffer's start, so an input at offset 2^62 takes no more memory than
// one at offset 0 (the kernels do not depend on the offset). fill(input, k, data) writes the
// elements of the k-th input (in topological order) that the layout reaches.
template <typename Fill> ir::Graph bind_inputs(const ir::Graph& graph, Fill&& fill) {
  std::size_t k = 0;
  return ir::replace_nodes(graph, [&](const ir::NodePtr& node) -> ir::NodePtr {
    if (node->op() != ir::Op::input || node->attr<ir::InputAttr>().buffer) return nullptr;
    ir::InputAttr bound = node->attr<ir::InputAttr>();
    auto [low, high] = bound.layout.extent();
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(high - low, static_cast<std::int64_t>(itemsize(bound.dtype)), &bytes))
      throw tensorjit::Error(fmt::format(
          "an input {}{} with strides {} spans {} elements, more bytes than can be allocated; give it "
          "strides that reach fewer elements",
          tensorjit::dtype_name(bound.dtype), ir::shape_str(bound.layout.shape),
          ir::shape_str(bound.layout.strides), high - low));
    bound.layout.offset -= low;
    bound.buffer = ir::Buffer::allocate(static_cast<std::size_t>(bytes));
    fill(bound, k++);
    return ir::Node::make(ir::Op::input, {}, std::move(bound));
  });
}

ir::Graph bind_random_inputs(const ir::Graph& graph, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return bind_inputs(graph, [&](const ir::InputAttr& input, std::size_t) {
    tensorjit::visit_dtype(input.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto* data = static_cast<T*>(input.buffer->data());
      for_each_element(input.layout, [&](std::int64_t i) {
        if constexpr (std::is_floating_point_v<T>) data[i] = std::uniform_real_distribution<T>(-4, 4)(rng);
        else if constexpr (std::is_same_v<T, bool>) data[i] = rng() & 1;
        else data[i] = static_cast<T>(std::uniform_int_distribution<int>(-100, 100)(rng));
      });
    });
  });
}

// The k-th input (in topological order) takes the values of member `input<k>` of an .npz, as
// the differential fuzzer writes them beside a reproducer; each member must have the input's
// dtype and shape.
ir::Graph bind_npz_inputs(const ir::Graph& graph, const fs::path& npz) {
  const std::map<std::string, tensorjit::Tensor> members = tensorjit::load_npz(npz.string());
  return bind_inputs(graph, [&](const ir::InputAttr& input, std::size_t k) {
    const std::string name = fmt::format("input{}", k);
    const auto member = members.find(name);
    if (member == members.end())
      throw tensorjit::Error(fmt::format("{} has no member {} for the graph's input {}", npz.string(), name, k));
    const tensorjit::Tensor values = member->second.contiguous();
    if (values.dtype() != input.dtype || values.shape() != input.layout.shape)
      throw tensorjit::Error(fmt::format("{}: {} is {}{} where the graph's input {} is {}{}", npz.string(), name,
                                         tensorjit::dtype_name(values.dtype()), ir::shape_str(values.shape()), k,
                                         tensorjit::dtype_name(input.dtype), ir::shape_str(input.layout.shape)));
    const std::size_t size = itemsize(input.dtype);
    const auto* from = static_cast<const unsigned char*>(values.data());
    auto* to = static_cast<unsigned char*>(input.buffer->data());
    for_each_element(input.layout, [&](std::int64_t i) {
      std::memcpy(to + i * static_cast<std::int64_t>(size), from, size);
      from += size;
    });
  });
}

// A folder for the JIT's files, removed however the run ends (an error, an exception).
class TemporaryFolder {
 public:
  TemporaryFolder() : path_(fs::temp_directory_path() / fmt::format("tensorjit-dump-{}", ::getpid())) {
    fs::create_directories(path_);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    std::error_code ignored;  // a destructor must not throw; a folder left behind is all it costs
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The files the JIT wrote for every kernel, with `extension`, in kernel order.
void print_kernel_files(const fs::path& folder, const std::string& extension) {
  std::vector<fs::path> files;
  if (fs::exists(folder))
    for (const auto& entry : fs::directory_iterator(folder)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > extension.size() && name.ends_with(extension) &&
          (extension != ".ll" || !name.ends_with(".opt.ll")))
        files.push_back(entry.path());
    }
  std::sort(files.begin(), files.end());
  if (files.empty()) std::cout << "; no JIT'd kernels: every step of this plan runs precompiled code\n";
  for (const auto& f : files) std::cout << "; ---- " << f.filename().string() << "\n" << read_file(f) << "\n";
}

// How far the JIT's value is from the interpreter's: identical bits, or for floating values the
// largest distance in units in the last place (NaN against NaN counts as equal, NaN against a
// number as infinitely far).
struct Agreement {
  bool identical = true;
  double max_ulp = 0;
};

template <class T>
double ulp_distance(T x, T y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y) ? 0 : INFINITY;
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  auto ordered = [](T v) -> std::int64_t {
    Bits bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? std::numeric_limits<Bits>::min() - bits : bits;  // monotonic in v
  };
  // Subtracted as integers: an f64's ordered bits converted to double first are 512 or more apart
  // near 1, so one ulp read 512.
  const std::int64_t low = std::min(ordered(x), ordered(y)), high = std::max(ordered(x), ordered(y));
  return static_cast<double>(static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low));
}

Agreement compare(const ir::Value& a, const ir::Value& b) {
  Agreement agreement;
  if (a.dtype != b.dtype || a.layout.shape != b.layout.shape) return {false, INFINITY};
  const auto size = static_cast<std::int64_t>(itemsize(a.dtype));
  std::int64_t numel = 1;
  for (auto e : a.layout.shape) numel *= e;
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t ea = a.layout.offset, eb = b.layout.offset, rest = flat;
    for (std::size_t d = a.layout.shape.size(); d-- > 0;) {
      std::int64_t i = rest % a.layout.shape[d];
      rest /= a.layout.shape[d];
      ea += i * a.layout.strides[d];
      eb += i * b.layout.strides[d];
    }
    const char* pa = static_cast<const char*>(a.buffer->data()) + ea * size;
    const char* pb = static_cast<const char*>(b.buffer->data()) + eb * size;
    if (std::memcmp(pa, pb, static_cast<std::size_t>(size)) == 0) continue;
    agreement.identical = false;
    double distance = INFINITY;
    if (a.dtype == tensorjit::f32) distance = ulp_distance(*reinterpret_cast<const float*>(pa), *reinterpret_cast<const float*>(pb));
    if (a.dtype == tensorjit::f64) distance = ulp_distance(*reinterpret_cast<const double*>(pa), *reinterpret_cast<const double*>(pb));
    agreement.max_ulp = std::max(agreement.max_ulp, distance);
  }
  return agreement;
}

// Ops the JIT evaluates with its own polynomials (docs/vector_math.md): their results are within
// an ulp bound of the interpreter's libm, not bit-identical, and so is a chain through them.
bool has_vector_math(const ir::Graph& graph) {
  for (const auto& node : ir::topological_order(graph))
    if (ir::is_transcendental(node->op()) && is_floating(node->dtype())) return true;
  return false;
}

// The plan as a pass left it: its graph, and its steps once fuse has made them.
void print_after_pass(const ir::PipelineLog& log, std::string_view pass) {
  for (const auto& record : log.passes) {
    if (record.name != pass) continue;
    std::cout << "; after " << record.name << (record.changed ? "" : " (unchanged)") << "\n"
              << ir::print(record.after.graph) << "\n";
    if (!record.after.steps.empty()) std::cout << ir::print_plan(record.after) << "\n";
  }
}

// Does only what the stage asks for: `graph` parses, `plan` and `after:<pass>` also plan, the
// kernel stages also run the plan on random inputs (running is what compiles the kernels), and
// --run does all of it. A graph of a large iota printed at --stage graph once allocated and
// computed all of it.
int run(const fs::path& file, const std::string& stage, bool time_it, const fs::path& inputs) {
  const ir::Graph parsed = ir::parse(read_file(file));
  const bool all = stage == "all";
  const bool after_pass = stage.starts_with("after:");
  if (stage == "graph" || all) std::cout << ir::print(parsed) << "\n";
  const bool runs = time_it || (stage != "graph" && stage != "plan" && !after_pass);
  if (stage == "graph" && !runs) return 0;

  // Planning reads shapes and layouts, not values: inputs get buffers only for a run.
  const ir::Graph graph = !runs ? parsed : inputs.empty() ? bind_random_inputs(parsed, 0x7e5a) : bind_npz_inputs(parsed, inputs);
  ir::PipelineLog log;
  ir::Plan plan = ir::plan_graph(graph, &log);
  if (after_pass) print_after_pass(log, std::string_view(stage).substr(6));
  if (stage == "plan" || all) std::cout << ir::print(plan.graph) << "\n" << ir::print_plan(plan) << "\n";
  if (!runs) return 0;

  std::vector<ir::Value> values;
  {
    TemporaryFolder folder;
    values = tensorjit::internal::run_plan(plan, folder.path());
    if (stage == "llvm" || all) print_kernel_files(folder.path(), ".ll");
    if (stage == "llvm-opt" || all) print_kernel_files(folder.path(), ".opt.ll");
    if (stage == "asm" || all) print_kernel_files(folder.path(), ".s");
  }

  if (!time_it) return 0;
  std::vector<ir::Value> expected = ir::interpret(graph);
  const bool bounded = has_vector_math(graph);
  bool agree = true;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Agreement agreement = compare(values[i], expected[i]);
    if (agreement.identical) {
      std::cout << fmt::format("output {}: bit-identical to the interpreter\n", i);
    } else if (bounded && std::isfinite(agreement.max_ulp)) {
      std::cout << fmt::format("output {}: within {} ulp of the interpreter (its transcendental ops are "
                               "polynomials within an ulp bound of libm, docs/vector_math.md)\n",
                               i, agreement.max_ulp);
    } else {
      agree = false;
      std::cout << fmt::format("output {}: DIFFERS from the interpreter (largest difference {} ulp)\n", i,
                               agreement.max_ulp);
    }
  }
  constexpr int kRuns = 11;
  std::vector<std::vector<double>> per_step(plan.steps.size());
  for (int r = 0; r < kRuns; ++r) {
    tensorjit::internal::StepTimes times;
    tensorjit::internal::run_plan(plan, {}, &times);
    for (std::size_t s = 0; s < times.steps.size(); ++s)
      per_step[s].push_back(std::chrono::duration<double, std::micro>(times.steps[s]).count());
  }
  for (std::size_t s = 0; s < per_step.size(); ++s) {
    auto& t = per_step[s];
    std::sort(t.begin(), t.end());
    std::cout << fmt::format("step {} ({}): median {:.1f} us, min {:.1f} us over {} runs\n", s,
                             ir::step_kind_name(plan.steps[s].kind), t[t.size() / 2],
                             t.front(), kRuns);
  }
  return agree ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tensorjit-dump: print what tensorjit makes of a graph in the text IR (.tjir)"};
  fs::path file;
  std::string stage = "graph";
  int vector_bits = 0;
  bool time_it = false;
  app.add_option("file", file, "a .tjir file (written by TENSORJIT_DUMP, or by hand)")->required();
  std::vector<std::string> stages = {"graph", "plan", "llvm", "llvm-opt", "asm", "all"};
  for (const auto& pass : ir::pipeline_passes()) stages.push_back("after:" + std::string(pass.name));
  app.add_option("--stage", stage,
                 "graph, after:<pass> (the plan a pass of the pipeline left: after:canonicalize, "
                 "after:fuse, ...), plan, llvm (before optimization), llvm-opt, asm, or all")
      ->check(CLI::IsMember(stages));
  app.add_option("--vector-bits", vector_bits, "build kernels at 128, 256 or 512 bits (default: native)")
      ->check(CLI::IsMember({128, 256, 512}));
  app.add_flag("--run", time_it, "run on random inputs, check against the interpreter, time each step");
  fs::path inputs;
  app.add_option("--inputs", inputs, "an .npz whose members input0, input1, ... are the inputs' values "
                 "(as differential_fuzz writes them), instead of random ones")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  // The JIT reads its width once, from the environment, when it is first used.
  if (vector_bits) ::setenv("TENSORJIT_VECTOR_BITS", std::to_string(vector_bits).c_str(), 1);
  try {
    return run(file, stage, time_it, inputs);
  } catch (const tensorjit::Error& e) {
    std::cerr << "tensorjit-dump: " << file.string() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "tensorjit-dump: " << file.string() << ": out of memory; try a smaller graph or an earlier --stage\n";
    return 1;
  } catch (const std::exception& e) {
    // Caught so that the stack unwinds and the temporary folder is removed.
    std::cerr << "tensorjit-dump: " << file.string() << ": " << e.what() << "\n";
    return 1;
  }
}
