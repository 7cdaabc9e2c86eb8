#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tensorjit/tensorjit.hpp>
#include <thread>
#include <unistd.h>

namespace tj = tensorjit;

namespace {

bool in_forked_child = false;

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer's check at a forked child's exit locks the allocator, which another thread of the
// parent may have held at the fork (this libsanitizer has no fork handler for it): the child waited
// there forever. It also reports the parent's threads' memory as leaked. Children skip the check.
extern "C" int __lsan_is_turned_off() { return in_forked_child ? 1 : 0; }
#endif

namespace {

// Runs `child` in a fork()ed child that then exits through std::exit, running the exit handlers
// as a program does, and returns its exit status, or -1 when it has not exited within `limit`
// (it is then killed): a hang fails the test instead of hanging it.
template <typename F> int status_of_child(F&& child, std::chrono::seconds limit) {
  std::cout.flush();  // or the child prints the parent's pending output again
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    in_forked_child = true;
    int code = 4;  // an exception: it must not unwind into the child's copy of the test runner
    try {
      code = child();
    } catch (...) {
    }
    std::exit(code);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// An elementwise eval large enough to be split over the pool's threads, with a known result. Its
// operand is an input: an expression of constants would fold into a constant.
bool large_eval_is_right() {
  const std::int64_t n = std::int64_t{1} << 22;
  static const tj::Tensor ones = tj::tensor<float>({n}, std::vector<float>(static_cast<std::size_t>(n), 1.0f));
  auto y = ones * 2.0f + 1.0f;
  y.eval();
  return y.at<float>({0}) == 3.0f && y.at<float>({n - 1}) == 3.0f;
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("eight threads evaluate the same and different graphs at once") {
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int round = 0; round < kRounds; ++round) {
        // Even threads share one graph; odd ones build a new one each round, a new length (a new
        // scalar alone is a kernel argument of the same plan, docs/contracts.md).
        const float scale = t % 2 == 0 ? 0.5f : 0.25f * static_cast<float>(t + round);
        const std::int64_t n = t % 2 == 0 ? 1000 : 1000 + 37 * t + round;
        auto a = tj::linspace(-1.0, 1.0, n);
        auto b = tj::full({n}, 2.0f);
        auto y = tj::maximum(a * b + 1.0f, 0.0f) * scale;
        auto values = y.to_vector<float>();
        auto inputs = a.to_vector<float>();
        for (std::int64_t i = 0; i < n; ++i) {
          float expected = inputs[i] * 2.0f + 1.0f;
          expected = (expected > 0.0f ? expected : 0.0f) * scale;
          if (values[i] != expected) ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == 0);
}

TEST_CASE("eight threads run each new plan at once: one prepares its kernels while the others look") {
  // Every round is a new plan (a new length) that all threads start together, so that one
  // thread's first look at a step's prepared kernels meets another thread's store of them.
  constexpr int kThreads = 8, kRounds = 24;
  std::barrier start(kThreads);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const float scale = 1.0f + static_cast<float>(round);
        const std::int64_t n = 3000 + 101 * round;
        std::vector<float> inputs(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) inputs[static_cast<std::size_t>(i)] = static_cast<float>(i) / n;
        auto a = tj::tensor<float>({n}, inputs);
        auto y = tj::exp(a * scale).sum() + tj::tanh(a).max();
        start.arrive_and_wait();
        const float value = y.item<float>();
        double sum = 0;
        for (float v : inputs) sum += std::exp(static_cast<double>(v) * scale);
        if (std::abs(value - (sum + std::tanh(static_cast<double>(inputs.back())))) > 1e-4 * sum) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == 0);
}

TEST_CASE("one shared lazy tensor evaluated by several threads") {
  auto x = tj::linspace(0.0, 1.0, 100000) * 3.0f + 1.0f;
  std::vector<std::vector<float>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { seen[t] = x.to_vector<float>(); });
  for (auto& th : threads) th.join();
  for (int t = 1; t < 4; ++t) CHECK(seen[t] == seen[0]);
}

// One of each kind of kernel, over arrays large enough to be split over the pool (loops from
// 32 Ki elements, rows, products, sorts, gathers and scatters, random numbers): `variant` changes
// a constant, so that different threads ask for different kernels.
std::vector<tj::Tensor> every_kernel_kind(int variant) {
  const std::int64_t rows = 96, columns = 700;
  const auto key = tj::key(7);
  auto x = tj::uniform(key, {rows, columns}, -2.0, 2.0) * static_cast<float>(1 + variant % 3);
  auto w = tj::normal(tj::key(8), {columns, 64});
  auto indices = tj::randint(tj::key(9), {rows, 40}, -columns, columns);
  return {tj::exp(x) * 0.5f + tj::tanh(x),
          x.sum({1}),
          x.max({0}),
          tj::softmax(x, 1),
          tj::layernorm(x, tj::ones({columns}), tj::zeros({columns})),
          tj::matmul(x, w),
          tj::cumsum(x, 1),
          tj::sort(x, 1),
          tj::take_along_axis(x, indices, 1),
          tj::scatter_add(tj::zeros({rows, columns}), 1, indices, tj::ones({rows, 40})),
          tj::tril(x, variant % 5)};
}

std::vector<std::vector<float>> values_of(const std::vector<tj::Tensor>& tensors) {
  tj::eval(tensors);
  std::vector<std::vector<float>> values;
  for (const auto& t : tensors) values.push_back(t.to_vector<float>());
  return values;
}

TEST_CASE("eight threads run every kind of kernel at once, next to the statistics, empty_cache and wait_for_tier_ups") {
  constexpr int kThreads = 8, kRounds = 3, kVariants = 4;
  std::vector<std::vector<std::vector<float>>> expected;  // computed on this thread alone first
  for (int v = 0; v < kVariants; ++v) expected.push_back(values_of(every_kernel_kind(v)));
  std::vector<int> failures(kThreads, 0);
  std::atomic<bool> done{false};
  // The process-wide calls the docs list as safe next to evals (docs/threads.md).
  std::thread observer([&] {
    while (!done.load()) {
      (void)tj::jit_statistics();
      (void)tj::cached_memory_bytes();
      tj::empty_cache();
      tj::wait_for_tier_ups();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const auto folder = std::filesystem::temp_directory_path() / ("tensorjit-threads-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &expected, &folder] {
      for (int round = 0; round < kRounds; ++round) {
        const int variant = (t + round) % kVariants;
        auto tensors = every_kernel_kind(variant);
        if (values_of(tensors) != expected[static_cast<std::size_t>(variant)]) ++failures[t];
        // Files of its own, written and read back; a handle of its own, assigned in place.
        const std::string stem = (folder / ("t" + std::to_string(t))).string();
        tj::save_npy(stem + ".npy", tensors[1]);
        tj::save_safetensors(stem + ".safetensors", {{"softmax", tensors[3]}});
        if (tj::load_npy(stem + ".npy").to_vector<float>() != tensors[1].to_vector<float>()) ++failures[t];
        if (tj::load_safetensors(stem + ".safetensors").at("softmax").to_vector<float>() != tensors[3].to_vector<float>())
          ++failures[t];
        tensors[2].assign(tensors[2] * 2.0f);
        if (tensors[2].to_vector<float>()[0] != expected[static_cast<std::size_t>(variant)][2][0] * 2.0f) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  done = true;
  observer.join();
  std::filesystem::remove_all(folder);
  for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == 0);
}

TEST_CASE("threads sharing one lazy graph of every kind read the same values") {
  const auto shared = every_kernel_kind(1);
  const auto expected = values_of(every_kernel_kind(1));
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < shared.size(); ++i) {
        // Each thread starts at another tensor, so evals of overlapping graphs overlap in time.
        const std::size_t k = (i + static_cast<std::size_t>(t) * 3) % shared.size();
        if (shared[k].to_vector<float>() != expected[k]) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) CHECK(failures[t] == 0);
}

TEST_CASE("a fork()ed child evaluates on a pool of its own") {
  // The parent's pool has workers, and evals that use a kernel again start the JIT's background
  // compiler thread; the child inherits none of these threads (fork copies one).
  for (int round = 0; round < 3; ++round) REQUIRE(large_eval_is_right());
  const int status = status_of_child([] { return large_eval_is_right() && large_eval_is_right() ? 0 : 1; },
                                     std::chrono::seconds(60));
  CHECK_MESSAGE(status != -1, "the child hung");
  CHECK(status == 0);
  REQUIRE(large_eval_is_right());  // the parent's pool still works
}

TEST_CASE("an eval runs when the pool cannot start its threads") {
  REQUIRE(large_eval_is_right());  // compiles the kernel and leaves its result's memory cached
  const int status = status_of_child(
      [] {
        // Address space for a little more heap, not for an 8 MiB thread stack: std::thread then
        // throws std::system_error when the child's own pool starts.
        std::ifstream status_file("/proc/self/status");
        std::string line;
        std::uint64_t kib = 0;
        while (std::getline(status_file, line))
          if (line.rfind("VmSize:", 0) == 0) kib = std::stoull(line.substr(7));
        const rlim_t limit = (kib + 4096) * 1024;
        const rlimit address_space{limit, limit};
        if (kib == 0 || setrlimit(RLIMIT_AS, &address_space) != 0) return 2;
        return large_eval_is_right() ? 0 : 1;
      },
      std::chrono::seconds(60));
  CHECK(status == 0);
}

}  // TEST_SUITE
