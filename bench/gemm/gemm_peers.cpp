// gemm_peers: tensorjit's packed GEMM against OpenBLAS, BLIS, oneDNN and Eigen on the W7 sizes
// (bench/README.md), alternating libraries round by round, reporting median GFLOP/s, the share of
// the FMA peak measured in the same run, and the ratio to the best peer, as a markdown table.
//
// Usage: gemm_peers [--threads N] [--rounds R] [--widths 0,256] [--sizes 64,256x784x512,...]
//                   [--mc X --kc Y --nc Z] [--types f32,f64] [--clock wall|cpu]
//                   [--also-blocking MC,KC,NC] [--also-packed] [--numpy-openblas PATH] [--torch-mkl PATH]
// --also-blocking adds a column: tensorjit's first width with those blocks (to set the blocks the
// CPU's caches give, docs/gemm.md, beside others); --also-packed makes that column (with the
// rules' blocks if --also-blocking is not given) always take the packed path. --numpy-openblas and --torch-mkl add the BLAS
// that NumPy's and PyTorch's wheels bundle, called by their C and Fortran entry points (what
// numpy.matmul and torch.matmul call for 2-D f32/f64 products).
// --clock cpu times single-thread runs in the calling thread's CPU time, which a shared, loaded
// machine disturbs far less than wall time (the time slices other processes take are excluded;
// their cache and memory traffic is not). Every peer then runs in the calling thread too.
// Run it as docs/gemm.md says: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset, OPENBLAS_NUM_THREADS
// and OMP_NUM_THREADS set to N, and pinned with taskset -c 0 for one thread.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_thread_pool.hpp"
#include "../limits/fma_chains.hpp"
#include "blas_peers.hpp"
#include "tensorjit/kernels/gemm.hpp"

namespace {

namespace tk = tensorjit::kernels;
using namespace gemm_bench;

struct Size {
  std::int64_t m, k, n;  // written m×k×n: A is m×k, B is k×n
};

struct Settings {
  int threads = 1;
  int rounds = 7;
  std::vector<int> widths{0};
  std::vector<std::string> types{"f32", "f64"};
  std::vector<Size> sizes{{64, 64, 64},     {256, 256, 256},   {512, 512, 512}, {1024, 1024, 1024},
                          {2048, 2048, 2048}, {256, 784, 512}, {256, 512, 10}};
  std::int64_t mc = 0, kc = 0, nc = 0;
  std::int64_t also_mc = 0, also_kc = 0, also_nc = 0;  // --also-blocking; 0: the rules' blocks
  bool also = false, also_packed = false;              // the extra column; its packed-only path
  std::string numpy_openblas, torch_mkl;                // library paths; empty: not loaded
  bool cpu_clock = false;
  // false: a run's time is its 20 ms divided by its calls (the mean); true: the median of its
  // calls timed one by one, which a call that lost its core to another process cannot move.
  bool median_call = false;
};

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::stoi(item));
  return values;
}

std::vector<Size> parse_sizes(const std::string& text) {
  std::vector<Size> sizes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    Size size{};
    if (std::sscanf(item.c_str(), "%ldx%ldx%ld", &size.m, &size.k, &size.n) == 3) sizes.push_back(size);
    else {
      const std::int64_t square = std::stol(item);
      sizes.push_back({square, square, square});
    }
  }
  return sizes;
}

Settings parse_settings(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--also-packed") {
      settings.also = settings.also_packed = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) break;
    const std::string value = argv[i + 1];
    if (flag == "--threads") settings.threads = std::stoi(value);
    else if (flag == "--rounds") settings.rounds = std::stoi(value);
    else if (flag == "--widths") settings.widths = parse_int_list(value);
    else if (flag == "--sizes") settings.sizes = parse_sizes(value);
    else if (flag == "--mc") settings.mc = std::stol(value);
    else if (flag == "--kc") settings.kc = std::stol(value);
    else if (flag == "--nc") settings.nc = std::stol(value);
    else if (flag == "--clock") settings.cpu_clock = value == "cpu";
    else if (flag == "--also-blocking") {
      if (std::sscanf(value.c_str(), "%ld,%ld,%ld", &settings.also_mc, &settings.also_kc, &settings.also_nc) != 3) {
        std::fprintf(stderr, "--also-blocking wants MC,KC,NC\n");
        std::exit(2);
      }
      settings.also = true;
    } else if (flag == "--numpy-openblas") settings.numpy_openblas = value;
    else if (flag == "--torch-mkl") settings.torch_mkl = value;
    else if (flag == "--per-call") settings.median_call = value == "median";
    else if (flag == "--types") {
      settings.types.clear();
      std::stringstream stream(value);
      std::string item;
      while (std::getline(stream, item, ',')) settings.types.push_back(item);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return settings;
}

// One contender: a name and a function computing C = A·B on the shared row-major buffers.
template <class T>
struct Contender {
  std::string name;
  std::function<void(const T*, const T*, T*)> run;
  std::vector<double> gflops;
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

double now(bool cpu_clock) {
  if (!cpu_clock) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec time{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time);
  return double(time.tv_sec) + 1e-9 * double(time.tv_nsec);
}

struct FmaPeak {
  double float_gflops = 0;
  double double_gflops = 0;
  const char* width = "";
};

// The sum over threads of each thread's rate, all threads running bench/limits' FMA chains at once.
double measure_fma_threads(double (*run_chains)(), int threads, bool cpu_clock) {
  std::vector<std::thread> workers;
  std::vector<double> rates(threads);
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const double start = now(cpu_clock);
      const double flops = run_chains();
      rates[t] = flops / (now(cpu_clock) - start) * 1e-9;
    });
  for (std::thread& worker : workers) worker.join();
  double total = 0;
  for (double rate : rates) total += rate;
  return total;
}

// The machine's FMA peak on `threads` threads, best of three, measured in this run so that the
// GEMMs are read against the same machine state; cpu_clock as the GEMMs are timed.
FmaPeak measure_fma_peak(int threads, bool cpu_clock) {
  if (!__builtin_cpu_supports("fma")) return FmaPeak{0, 0, "none"};
  FmaPeak peak;
  peak.width = bench::fma_vector_bits() == 512 ? "AVX-512" : "AVX2";
  for (int repeat = 0; repeat < 3; ++repeat) {
    const double f = measure_fma_threads(bench::fma_chains_f32, threads, cpu_clock);
    const double d = measure_fma_threads(bench::fma_chains_f64, threads, cpu_clock);
    if (f > peak.float_gflops) peak.float_gflops = f;
    if (d > peak.double_gflops) peak.double_gflops = d;
  }
  return peak;
}

// Seconds per call: repeats the call until at least 20 ms passed; the mean over them, or with
// median_call the median of the calls' own times. For the mean the clock is read once per batch of
// calls (1, 2, 4, ...), not after each: reading the thread CPU clock is a system call of about a
// microsecond, as long as a whole 8x8x8 product.
template <class T>
double time_call(const Contender<T>& contender, const T* a, const T* b, T* c, bool cpu_clock, bool median_call) {
  if (!median_call) {
    const double start = now(cpu_clock);
    double elapsed = 0;
    std::int64_t calls = 0;
    for (std::int64_t batch = 1; elapsed < 0.02; batch *= 2) {
      for (std::int64_t call = 0; call < batch; ++call) contender.run(a, b, c);
      calls += batch;
      elapsed = now(cpu_clock) - start;
    }
    return elapsed / static_cast<double>(calls);
  }
  std::vector<double> calls;
  const double start = now(cpu_clock);
  double previous = start;
  do {
    contender.run(a, b, c);
    const double time = now(cpu_clock);
    calls.push_back(time - previous);
    previous = time;
  } while (previous - start < 0.02);
  return median(calls);
}

template <class T>
double max_relative_difference(const std::vector<T>& x, const std::vector<T>& y) {
  double scale = 0, difference = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    scale = std::max(scale, std::abs(double(x[i])));
    difference = std::max(difference, std::abs(double(x[i]) - double(y[i])));
  }
  return scale > 0 ? difference / scale : difference;
}

std::string load_average() {
  std::FILE* file = std::fopen("/proc/loadavg", "r");
  if (file == nullptr) return "unknown";
  char text[128] = {};
  const bool read = std::fgets(text, sizeof text, file) != nullptr;
  std::fclose(file);
  std::string line = read ? text : "unknown";
  while (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

std::string format_ratio(double ours, double theirs) {
  if (theirs <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", ours / theirs);
  return text;
}

std::string format_gflops(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

template <class T>
void benchmark_size(const Settings& settings, const Size& size, std::vector<Peer>& peers, BenchThreadPool& pool,
                    double peak_gflops, const char* type_name) {
  const std::int64_t m = size.m, n = size.n, k = size.k;
  std::mt19937 random(42);
  std::uniform_real_distribution<T> values(T(-1), T(1));
  std::vector<T> a(m * k), b(k * n), c(m * n), check(m * n);
  for (T& v : a) v = values(random);
  for (T& v : b) v = values(random);

  std::vector<Contender<T>> contenders;
  std::vector<int> widths = settings.widths;
  if (settings.also) widths.push_back(widths.front());
  for (std::size_t column = 0; column < widths.size(); ++column) {
    const int width = widths[column];
    const bool also = column == settings.widths.size();
    tk::GemmOptions options;
    options.vector_bits = width;
    options.mc = also ? settings.also_mc : settings.mc;
    options.kc = also ? settings.also_kc : settings.kc;
    options.nc = also ? settings.also_nc : settings.nc;
    if (also && settings.also_packed) options.allow_unpacked_path = false;
    if (settings.threads > 1) options.parallel_for = pool.parallel_for();
    const tk::KernelInfo info = sizeof(T) == 4 ? tk::describe_float_kernel(options) : tk::describe_double_kernel(options);
    std::string name = "tensorjit " + std::to_string(info.vector_bits) + " (" + std::to_string(info.mr) + "x" +
                       std::to_string(info.nr) + ", " + std::to_string(info.mc) + "/" + std::to_string(info.kc) +
                       "/" + std::to_string(info.nc) + ")";
    contenders.push_back({name, [=](const T* a_data, const T* b_data, T* c_data) {
                            tk::GemmArgs<T> args;
                            args.m = m;
                            args.n = n;
                            args.k = k;
                            args.a = {a_data, k, 1, 0};
                            args.b = {b_data, n, 1, 0};
                            args.c = {c_data, n, 0};
                            tk::gemm(args, options);
                          }, {}});
  }
  const std::size_t first_peer = contenders.size();
  for (Peer& peer : peers) {
    const auto function = sizeof(T) == 4 ? reinterpret_cast<RowMajorGemm<T>>(peer.sgemm)
                                         : reinterpret_cast<RowMajorGemm<T>>(peer.dgemm);
    if (!peer.present || function == nullptr) continue;
    const Peer* peer_address = &peer;
    contenders.push_back({peer.name, [=](const T* a_data, const T* b_data, T* c_data) {
                            function(peer_address, m, n, k, a_data, b_data, c_data);
                          }, {}});
  }

  // Warm up and check every contender against the first.
  contenders[0].run(a.data(), b.data(), check.data());
  for (Contender<T>& contender : contenders) {
    std::fill(c.begin(), c.end(), T(0));
    contender.run(a.data(), b.data(), c.data());
    const double difference = max_relative_difference(check, c);
    if (difference > (sizeof(T) == 4 ? 1e-4 : 1e-12))
      std::fprintf(stderr, "warning: %s differs from tensorjit by %g (relative)\n", contender.name.c_str(), difference);
  }
  const double flops = 2.0 * double(m) * double(n) * double(k);
  for (int round = 0; round < settings.rounds; ++round) {
    for (Contender<T>& contender : contenders) {
      // Let another library's spinning worker threads go to sleep before timing this one.
      if (settings.threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      const double seconds =
          time_call(contender, a.data(), b.data(), c.data(), settings.cpu_clock, settings.median_call);
      contender.gflops.push_back(flops / seconds * 1e-9);
    }
  }

  double best_peer = 0;
  for (std::size_t i = first_peer; i < contenders.size(); ++i) best_peer = std::max(best_peer, median(contenders[i].gflops));
  std::string row = "| " + std::to_string(m) + "×" + std::to_string(k) + "×" + std::to_string(n) + " | " + type_name +
                    " |";
  for (std::size_t i = 0; i < first_peer; ++i) {
    const double g = median(contenders[i].gflops);
    row += " " + format_gflops(g) + " (" + format_gflops(100 * g / peak_gflops) + "%) |";
  }
  for (const Peer& peer : peers) {
    bool found = false;
    for (std::size_t i = first_peer; i < contenders.size(); ++i)
      if (contenders[i].name == peer.name) {
        row += " " + format_gflops(median(contenders[i].gflops)) + " |";
        found = true;
      }
    if (!found) row += " absent |";
  }
  const double ours = median(contenders[0].gflops);
  double openblas = 0;
  for (std::size_t i = first_peer; i < contenders.size(); ++i)
    if (contenders[i].name == "OpenBLAS" || (openblas == 0 && contenders[i].name == "NumPy OpenBLAS"))
      openblas = median(contenders[i].gflops);
  row += " " + format_ratio(ours, best_peer) + " | " + format_ratio(ours, openblas) + " |";
  if (settings.also) row += " " + format_ratio(ours, median(contenders[first_peer - 1].gflops)) + " |";
  std::printf("%s\n", row.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_settings(argc, argv);
  if (settings.cpu_clock && settings.threads != 1) {
    std::fprintf(stderr, "--clock cpu only measures single-thread runs\n");
    return 2;
  }
  std::vector<Peer> peers{open_openblas(), open_blis(), open_onednn(), open_eigen()};
  if (!settings.numpy_openblas.empty()) peers.push_back(open_numpy_openblas(settings.numpy_openblas));
  if (!settings.torch_mkl.empty()) peers.push_back(open_torch_mkl(settings.torch_mkl));
  for (Peer& peer : peers)
    if (peer.present && peer.set_threads != nullptr) peer.set_threads(peer, settings.threads);
  BenchThreadPool pool(settings.threads);
  const FmaPeak peak = measure_fma_peak(settings.threads, settings.cpu_clock);

  std::printf("GEMM, %d thread(s), %d rounds alternating, %s clock%s, median GFLOP/s"
              " (tensorjit also as %% of FMA peak)\n\n",
              settings.threads, settings.rounds, settings.cpu_clock ? "thread CPU" : "wall",
              settings.median_call ? ", median call of each run" : "");
  std::printf("- FMA peak (%s, %d thread(s)): f32 %.1f GFLOP/s, f64 %.1f GFLOP/s\n", peak.width, settings.threads,
              peak.float_gflops, peak.double_gflops);
  for (const Peer& peer : peers) std::printf("- %s: %s\n", peer.name.c_str(), peer.detail.c_str());
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  const char* l2 = std::getenv("OPENBLAS_L2_SIZE");
  std::printf("- OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s\n", coretype ? coretype : "(unset)", l2 ? l2 : "(unset)");
  std::printf("- load average at start (other processes share these cores): %s\n\n", load_average().c_str());

  const tk::CacheSizes caches = tk::host_cache_sizes();
  std::printf("- caches (%s): L1d %ld KiB, L2 %ld KiB, L3 per core %ld KiB\n", caches.source,
              long(caches.l1d_bytes >> 10), long(caches.l2_bytes >> 10), long(caches.l3_bytes_per_core >> 10));
  std::string header = "| m×k×n | type |", rule = "|---|---|";
  std::vector<int> widths = settings.widths;
  if (settings.also) widths.push_back(widths.front());
  for (std::size_t column = 0; column < widths.size(); ++column) {
    const bool also = column == settings.widths.size();
    tk::GemmOptions options;
    options.vector_bits = widths[column];
    options.mc = also ? settings.also_mc : settings.mc;
    options.kc = also ? settings.also_kc : settings.kc;
    options.nc = also ? settings.also_nc : settings.nc;
    const tk::KernelInfo f = tk::describe_float_kernel(options), d = tk::describe_double_kernel(options);
    header += " tensorjit " + std::to_string(f.vector_bits) + " MC/KC/NC f32 " + std::to_string(f.mc) + "/" +
              std::to_string(f.kc) + "/" + std::to_string(f.nc) + ", f64 " + std::to_string(d.mc) + "/" +
              std::to_string(d.kc) + "/" + std::to_string(d.nc) + (also && settings.also_packed ? ", packed only" : "") +
              " |";
    rule += "---|";
  }
  for (const Peer& peer : peers) {
    header += " " + peer.name + " |";
    rule += "---|";
  }
  header += " tensorjit ÷ best peer | tensorjit ÷ OpenBLAS |";
  rule += "---|---|";
  if (settings.also) {
    header += std::string(" tensorjit ÷ the ") + (settings.also_packed ? "packed-only " : "") + "column before the peers |";
    rule += "---|";
  }
  std::printf("%s\n%s\n", header.c_str(), rule.c_str());
  for (const std::string& type : settings.types)
    for (const Size& size : settings.sizes) {
      if (type == "f32") benchmark_size<float>(settings, size, peers, pool, peak.float_gflops, "f32");
      else benchmark_size<double>(settings, size, peers, pool, peak.double_gflops, "f64");
    }
  std::printf("\n- load average at end: %s\n", load_average().c_str());
  return 0;
}
